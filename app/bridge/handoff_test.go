//go:build unix

package bridge

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHandOff: the bridge sends its stdin and stdout with the preamble; a
// host that takes them there (inline) gets no second copy, and a host of
// before "inline" (which reads the preamble without room for descriptors,
// so the kernel closes them) gets them after its Welcome. Either way the
// host writes to the app's stdout itself and the bridge ends with the
// session. Fake hosts on a real Unix socket; real pipes as the app's
// stdin and stdout.
func TestHandOff(t *testing.T) {
	for _, inline := range []bool{true, false} {
		name := map[bool]string{true: "inline", false: "older host"}[inline]
		t.Run(name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "mcp.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			hostErr := make(chan string, 1)
			go func() { hostErr <- fakeHost(ln, inline) }()

			stdinR, stdinW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			stdoutR, stdoutW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdinW.Close()
			defer stdoutR.Close()
			nc, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			err = Serve(nc, Session{Stdin: stdinR, Stdout: stdoutW, Stderr: &stderr})
			stdinR.Close()
			stdoutW.Close()
			if err != nil {
				t.Errorf("Serve: %v (stderr %q)", err, stderr.String())
			}
			if msg := <-hostErr; msg != "" {
				t.Error(msg)
			}
			got, _ := io.ReadAll(stdoutR)
			if string(got) != "written by the host\n" {
				t.Errorf("the app's stdout got %q", got)
			}
		})
	}
}

// fakeHost serves one bridge: a current host (inline) or one of before
// "inline". It returns what went wrong, or "".
func fakeHost(ln net.Listener, inline bool) string {
	c, err := ln.Accept()
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	var line []byte
	var fds []int
	if inline {
		buf := make([]byte, 4096)
		oob := make([]byte, unix.CmsgSpace(4*4))
		n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
		if err != nil {
			return err.Error()
		}
		line, fds = buf[:n], rights(oob[:oobn])
	} else {
		line, err = bufio.NewReader(c).ReadBytes('\n') // no room for descriptors: the kernel closes them
		if err != nil {
			return err.Error()
		}
	}
	if !strings.Contains(string(line), `"fds":true,"inline":true`) || !strings.HasSuffix(string(line), "}}\n") {
		return "preamble " + string(line)
	}
	welcome := `{"switchboard":{"version":1,"fds":true,"inline":true}}` + "\n"
	if !inline {
		welcome = `{"switchboard":{"version":1,"fds":true}}` + "\n"
	}
	if _, err := c.Write([]byte(welcome)); err != nil {
		return err.Error()
	}
	if !inline {
		b := make([]byte, 8)
		oob := make([]byte, unix.CmsgSpace(4*4))
		n, oobn, _, _, err := uc.ReadMsgUnix(b, oob)
		if err != nil || n != 1 {
			return "the descriptors after the Welcome: " + string(b[:n])
		}
		fds = rights(oob[:oobn])
	}
	if len(fds) != 2 {
		return "descriptors: " + strings.Repeat("x", len(fds))
	}
	out := os.NewFile(uintptr(fds[1]), "app stdout")
	_, _ = out.WriteString("written by the host\n")
	out.Close()
	unix.Close(fds[0])
	if _, err := c.Write([]byte(`{"switchboard":{"version":1,"end":true}}` + "\n")); err != nil {
		return err.Error()
	}
	// The bridge sends nothing more (no second copy of the descriptors):
	// it closes the connection.
	if rest, _ := io.ReadAll(c); len(rest) > 0 {
		return "the bridge sent more: " + string(rest)
	}
	return ""
}

func rights(oob []byte) []int {
	msgs, _ := unix.ParseSocketControlMessage(oob)
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}
