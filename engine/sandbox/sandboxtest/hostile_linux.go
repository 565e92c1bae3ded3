//go:build linux

// Package sandboxtest is the sandbox's behavioural suite (issues 25 and
// 31, docs/sandbox.md "Threat model"): a hostile program that tries every
// escape a confined MCP server could try, one probe a run, and [Run], which
// runs each probe unconfined first (it must succeed: a probe cannot pass
// by being broken), then under every preset through a given shim (the Go
// shim, the C shim), where each escape must be denied and each thing a
// server needs must still work.
//
// A test binary becomes the hostile program by calling [Main] first thing
// in its TestMain; app/host's tests run it as an MCP server ([Serve]) under
// a real host, to try the host's own sockets.
package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// RoleEnv makes a test binary the hostile program: "probe" runs one probe
// (os.Args[1] the probe's name, os.Args[2] its argument) and prints "ok"
// or "denied: ERROR"; "serve" is an MCP server with one tool, "try".
const RoleEnv = "SWITCHBOARD_HOSTILE_ROLE"

// Probes are the hostile program's tries: each returns nil when what it
// tried worked.
var Probes = map[string]func(arg string) error{
	"read":  func(p string) error { _, err := os.ReadFile(p); return err },
	"list":  func(p string) error { _, err := os.ReadDir(p); return err },
	"write": func(p string) error { return os.WriteFile(p, []byte("planted"), 0o644) },
	"exec":  func(p string) error { return exec.Command(p).Run() },
	// A read-only folder stays read-only: arg is a folder holding "file".
	"ro-write": func(d string) error {
		f, err := os.OpenFile(filepath.Join(d, "file"), os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write([]byte("x"))
			f.Close()
		}
		return err
	},
	"ro-create":   func(d string) error { return os.WriteFile(filepath.Join(d, "new"), nil, 0o644) },
	"ro-rename":   func(d string) error { return os.Rename(filepath.Join(d, "file"), filepath.Join(d, "moved")) },
	"ro-unlink":   func(d string) error { return os.Remove(filepath.Join(d, "file")) },
	"ro-truncate": func(d string) error { return os.Truncate(filepath.Join(d, "file"), 0) },
	"ro-chmod":    func(d string) error { return os.Chmod(filepath.Join(d, "file"), 0o666) },
	"ro-mkdir":    func(d string) error { return os.Mkdir(filepath.Join(d, "sub"), 0o755) },
	"ro-symlink":  func(d string) error { return os.Symlink("/etc/passwd", filepath.Join(d, "link")) },
	"ro-fifo":     func(d string) error { return unix.Mkfifo(filepath.Join(d, "fifo"), 0o600) },
	// Sockets.
	"unix": func(p string) error { return dialClose("unix", p) },
	"unix-abstract": func(name string) error {
		return dialClose("unix", "@"+name)
	},
	"unix-dgram": func(p string) error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrUnix{Name: p})
	},
	"socketpair": func(string) error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte("x")); err != nil {
			return err
		}
		b := make([]byte, 1)
		_, err = unix.Read(fds[1], b)
		return err
	},
	"tcp": func(addr string) error { return dialClose("tcp", addr) },
	"listen": func(string) error {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			l.Close()
		}
		return err
	},
	"udp": func(addr string) error {
		c, err := net.Dial("udp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("udp probe"))
		return err
	},
	"raw":     func(string) error { return socketClose(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP) },
	"netlink": func(string) error { return socketClose(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE) },
	"io_uring": func(string) error {
		var params [120]byte // struct io_uring_params
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	},
	"keyctl": func(string) error {
		// KEYCTL_GET_KEYRING_ID of the user's key ring, creating it.
		_, _, e := unix.Syscall(unix.SYS_KEYCTL, 0, uintptr(0xfffffffc), 1)
		if e != 0 {
			return e
		}
		return nil
	},
	// Other processes.
	"signal": func(pid string) error { return unix.Kill(atoi(pid), unix.SIGCONT) },
	"kill":   func(pid string) error { return unix.Kill(atoi(pid), unix.SIGTERM) },
	"ptrace": func(pid string) error {
		_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(atoi(pid)), 0, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil // the seize ends with this process
	},
	"proc-environ": func(pid string) error { _, err := os.ReadFile("/proc/" + pid + "/environ"); return err },
	"proc-mem": func(pid string) error {
		f, err := os.Open("/proc/" + pid + "/mem")
		if err == nil {
			f.Close()
		}
		return err
	},
	"proc-self": func(string) error { _, err := os.ReadFile("/proc/self/status"); return err },
	// A child of the server reads its own /proc/self (node's
	// process.memoryUsage() in a child of npx).
	"proc-child": func(string) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cmd := exec.Command(exe, "proc-self", "")
		cmd.Env = append(os.Environ(), RoleEnv+"=probe")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		if s := strings.TrimSpace(string(out)); s != "ok" {
			return errors.New(s)
		}
		return nil
	},
	"tiocsti": func(string) error {
		fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		c := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return e
		}
		return nil
	},
	// What the server may do.
	"tmp": func(string) error { return os.WriteFile(filepath.Join(os.TempDir(), "probe"), []byte("x"), 0o600) },
	// noenv: the variable is not in the environment.
	"noenv": func(name string) error {
		if v, ok := os.LookupEnv(name); ok {
			return fmt.Errorf("%s is set: %s", name, v)
		}
		return nil
	},
	// env-is: arg is NAME=VALUE, and the variable has that value.
	"env-is": func(kv string) error {
		k, v, _ := strings.Cut(kv, "=")
		if got, ok := os.LookupEnv(k); !ok || got != v {
			return fmt.Errorf("%s is %q (set: %v), want %q", k, got, ok, v)
		}
		return nil
	},
	// tmpdir-not-under: TMPDIR does not name arg's folder.
	"tmpdir-not-under": func(dir string) error {
		if t := os.Getenv("TMPDIR"); dir != "" && strings.HasPrefix(t, dir) {
			return fmt.Errorf("TMPDIR %s is under %s", t, dir)
		}
		return nil
	},
	// fds: no descriptor above 2 but the runtime's own (epoll, eventfd).
	"fds": func(string) error {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return err
		}
		var extra []string
		for _, e := range ents {
			n, _ := strconv.Atoi(e.Name())
			if n <= 2 {
				continue
			}
			t, err := os.Readlink("/proc/self/fd/" + e.Name())
			if err != nil {
				continue // closed since: the directory's own
			}
			// The runtime's own: epoll, eventfd, the cgroup CPU limits Go
			// reads for GOMAXPROCS, the directory being read.
			if strings.HasPrefix(t, "anon_inode:") || strings.HasPrefix(t, "/sys/fs/cgroup/") || t == "/proc/"+strconv.Itoa(os.Getpid())+"/fd" {
				continue
			}
			extra = append(extra, e.Name()+" -> "+t)
		}
		if len(extra) > 0 {
			return fmt.Errorf("inherited descriptors: %s", strings.Join(extra, ", "))
		}
		return nil
	},
	// hostapi: a request line on a Switchboard host's socket (arg): the
	// attack that rewrites the server's own entry to "sandbox": "off".
	"hostapi": func(sock string) error {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return err
		}
		defer c.Close()
		// A refused peer is told why and closed at once: the write may
		// then fail, and the refusal is still there to read.
		_, werr := c.Write([]byte(`{"id":1,"method":"servers.list"}` + "\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 4096)
		n, err := c.Read(b)
		if n == 0 && werr != nil {
			return werr
		}
		if err != nil && n == 0 {
			return err
		}
		if s := string(b[:n]); strings.Contains(s, `"error"`) {
			return fmt.Errorf("refused: %s", strings.TrimSpace(s))
		}
		return nil
	},
}

func init() {
	// gateway: a Switchboard gateway socket (arg) keeps a connection it
	// admits open, waiting for a bridge's preamble; one it refuses is
	// closed at once.
	Probes["gateway"] = func(sock string) error {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		b := make([]byte, 1)
		if _, err := c.Read(b); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("refused: %v", err)
		}
		return nil
	}
	// dbus: the session bus at path (a keyring's door): AUTH EXTERNAL
	// answered OK.
	Probes["dbus"] = func(path string) error {
		c, err := net.Dial("unix", path)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		uid := fmt.Sprintf("%x", strconv.Itoa(os.Getuid()))
		if _, err := c.Write([]byte("\x00AUTH EXTERNAL " + uid + "\r\n")); err != nil {
			return err
		}
		b := make([]byte, 256)
		n, err := c.Read(b)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(string(b[:n]), "OK ") {
			return fmt.Errorf("the bus answered %q", b[:n])
		}
		return nil
	}
	// hostapi-child: the hostapi probe from a child of the server.
	Probes["hostapi-child"] = func(sock string) error { return runSelf("hostapi", sock, false) }
	// hostapi-orphan: from a grandchild whose parent exited first, so it
	// was reparented away from the server (to the host, its subreaper).
	Probes["hostapi-orphan"] = func(sock string) error { return runSelf("orphan-inner", sock, false) }
	Probes["orphan-inner"] = func(sock string) error { return runSelf("orphan-late", sock, true) }
	Probes["orphan-late"] = func(sock string) error {
		for i := 0; i < 100 && os.Getppid() != 1 && parentIsProbe(); i++ {
			time.Sleep(20 * time.Millisecond) // until the parent has exited
		}
		return Probes["hostapi"](sock)
	}
}

// parentIsProbe reports whether this process's parent is still the
// orphan-inner probe (its command line names it).
func parentIsProbe() bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	return err == nil && strings.Contains(string(b), "orphan-inner")
}

// runSelf runs this program as probe with arg and returns its verdict;
// detach: start it and return at once (it writes to this process's
// stdout, which the caller reads to its end).
func runSelf(probe, arg string, detach bool) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, probe, arg)
	cmd.Env = append(os.Environ(), RoleEnv+"=probe")
	if detach {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		os.Exit(0) // the grandchild prints the verdict
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "ok" {
		return errors.New(strings.TrimPrefix(s, "denied: "))
	}
	return nil
}

func dialClose(network, addr string) error {
	c, err := net.Dial(network, addr)
	if err == nil {
		c.Close()
	}
	return err
}

func socketClose(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// Main makes the calling test binary the hostile program when RoleEnv says
// so, and exits; it returns otherwise. Call it first in TestMain.
func Main() {
	switch os.Getenv(RoleEnv) {
	case "probe":
		if len(os.Args) < 2 {
			fmt.Println("denied: no probe named")
			os.Exit(2)
		}
		arg := ""
		if len(os.Args) > 2 {
			arg = os.Args[2]
		}
		fmt.Println(Try(os.Args[1], arg))
		os.Exit(0)
	case "serve":
		Serve()
		os.Exit(0)
	}
}

// Try runs one probe and says "ok" or "denied: ERROR".
func Try(probe, arg string) string {
	f, ok := Probes[probe]
	if !ok {
		return "denied: no probe " + probe
	}
	if err := f(arg); err != nil {
		return "denied: " + err.Error()
	}
	return "ok"
}

// Serve is the hostile program as an MCP server over stdio: the tool
// "try" takes {"probe", "arg"} and answers Try's words.
func Serve() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	type in struct {
		Probe string `json:"probe"`
		Arg   string `json:"arg"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "try", Description: "tries one escape"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: Try(a.Probe, a.Arg)}}}, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "hostile server:", err)
	}
}
