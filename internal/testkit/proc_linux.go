package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Gone reports whether a process no longer runs: no such pid, or a zombie.
func Gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// ProcsWithEnv returns the processes (other than this one) whose
// environment holds the variable kv ("NAME=value"), as "PID COMM" by pid.
func ProcsWithEnv(kv string) map[int]string {
	needle := []byte("\x00" + kv + "\x00")
	found := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(append([]byte{0}, b...), 0), needle) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		found[pid] = fmt.Sprintf("%d %s", pid, strings.TrimSpace(string(comm)))
	}
	return found
}

// Environ returns a process's environment; it fails the test if it cannot
// read it.
func Environ(t testing.TB, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatalf("reading the environment of pid %d: %v", pid, err)
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}
