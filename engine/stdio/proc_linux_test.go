//go:build linux

package stdio

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// PidAlive reports whether pid is a live process: present in /proc and
// neither a zombie nor dead. ok is false where this cannot be told.
func PidAlive(pid int) (alive, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false, true
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) == 0 {
		return false, true
	}
	return f[0] != "Z" && f[0] != "X", true
}

// PidExists reports whether /proc still lists pid at all (even as a zombie).
func PidExists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}
