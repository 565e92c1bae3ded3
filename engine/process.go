package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// StartOptions are what the caller of [Start] supplies besides the spec.
type StartOptions struct {
	// Path is the PATH list used to find the command and given to the
	// server (the app passes the user's login-shell PATH). Empty means the
	// PATH of HostEnv.
	Path string
	// HostEnv is the environment the allowlist filters; nil means
	// os.Environ().
	HostEnv []string
	// Secrets resolves the secret references of the spec's env.
	Secrets SecretResolver
	// Registry, if set, records the process group so that a later
	// [Registry.Sweep] can kill what survives a killed host.
	Registry *Registry
	// Logger receives debug and warning lines; nil discards them.
	Logger *slog.Logger
	// Stderr replaces the host's stderr for [StderrInherit] (tests).
	Stderr io.Writer
	// Shim is the program that implements the sandbox's exec shim
	// (sandbox.ShimMain behind the argument sandbox.ShimArg): the app's
	// own executable. Required to start a spec whose Sandbox is enabled.
	Shim string
	// SandboxTemp is the folder under which each sandboxed server gets
	// its private temp directory (NAME, mode 0700, its TMPDIR); empty
	// means TMPDIR/switchboard-sandbox-UID.
	SandboxTemp string
	// Protected are paths a sandboxed server is never given beside the
	// credential files sandbox.Protected lists: the app's own state (its
	// config, activity log, pins, OAuth material, runtime folder).
	Protected []string
}

// ExitStatus says how a server's main process ended.
type ExitStatus struct {
	Exited bool   // it exited by itself with Code
	Code   int    // the exit code, when Exited
	Signal string // the signal that ended it, when not Exited
}

func (s ExitStatus) String() string {
	if s.Exited {
		return fmt.Sprintf("exit status %d", s.Code)
	}
	if s.Signal != "" {
		return "killed by signal " + s.Signal
	}
	return "ended"
}

// Process is one running server: its pipes, its stderr, and the stop
// ladder that ends its whole process tree. All methods are safe for
// concurrent use.
type Process struct {
	spec   Spec
	launch *Launch
	osp    *osProc
	log    *slog.Logger

	stdin  *os.File      // our end of the server's stdin
	stdout *os.File      // our end of the server's stdout
	ring   *Ring         // captured stderr, or nil
	pumped chan struct{} // closed when captured stderr has been read to its end

	registry *Registry
	ident    Identity

	started time.Time
	exited  chan struct{} // the main process exited (it is not reaped yet)
	status  ExitStatus    // valid once exited is closed

	sandbox *sandbox.Status // what confines the server, or nil

	stopOnce sync.Once
	done     chan struct{} // the ladder finished: no process of the tree is left
	stopErr  error
}

// Start spawns the server described by spec (which [Start] checks) without
// a shell, with its allowlisted environment and its secrets resolved now.
// The secret values go to the OS and are not kept. The caller must
// eventually call [Process.Stop], also after the server exited by itself,
// so that the rest of its tree is ended and the main process reaped.
func Start(ctx context.Context, spec Spec, opts StartOptions) (*Process, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host := opts.HostEnv
	if host == nil {
		host = os.Environ()
	}
	path := opts.Path
	if path == "" {
		path, _ = lookupEnv(host, "PATH", goosName)
	}
	if v, ok := envPath(spec.Env); ok {
		path = v // the entry's own PATH wins, for the lookup too
	}
	launch, err := hostLookup(goosName, path, host).resolve(&spec)
	if err != nil {
		return nil, err
	}
	env, wipe, err := BuildEnv(ctx, &spec, host, path, goosName, opts.Secrets)
	if err != nil {
		return nil, err
	}
	// The secrets' values are the OS's once the process is spawned; zero
	// ours on every path out (see docs/secrets.md for the copies Go's
	// runtime makes that nothing here can reach).
	defer wipe()
	// Every process of the server inherits the token: the stop ladder
	// finds by it the members that left the process group and lost their
	// parent, and a later sweep finds the survivors of a killed host.
	ident := Identity{Token: newToken()}
	env = append(env, TokenEnv+"="+ident.Token)

	run := launch // what is executed: the server, or the sandbox's shim that execve's it
	var sbx *sandbox.Status
	if spec.Sandbox.Enabled {
		var carried []byte // the loader's variables, for the shim
		run, env, sbx, carried, err = sandboxLaunch(&spec, launch, opts, env, path)
		if err != nil {
			return nil, err
		}
		defer clear(carried)
		built := wipe
		wipe = func() { built(); clear(carried) }
		if sbx.Unconfined {
			log.Warn("sandbox not available; the entry allows starting unconfined", "server", spec.Name, "why", sbx.NotEnforced)
		}
	}

	p := &Process{spec: spec, launch: launch, log: log.With("server", spec.Name), sandbox: sbx,
		registry: opts.Registry, exited: make(chan struct{}), done: make(chan struct{})}
	var closeAfter []*os.File // the child's ends, closed once it has them
	defer func() {
		for _, f := range closeAfter {
			f.Close()
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("server %q: creating stdin pipe: %w", spec.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("server %q: creating stdout pipe: %w", spec.Name, err)
	}
	closeAfter = append(closeAfter, inR, outW)
	p.stdin, p.stdout = inW, outR

	cmd := &exec.Cmd{Path: run.Path, Args: run.Args, Env: env, Dir: spec.Cwd, Stdin: inR, Stdout: outW}
	var errR *os.File
	switch spec.Stderr.Kind {
	case StderrInherit:
		cmd.Stderr = os.Stderr
		if opts.Stderr != nil {
			cmd.Stderr = opts.Stderr
		}
	case StderrDiscard:
		// nil: the null device
	case StderrFile:
		f, err := os.OpenFile(spec.Stderr.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			p.closePipes()
			return nil, &SpecError{Server: spec.Name, Key: "stderr.file", Msg: fmt.Sprintf("cannot open %q for appending (%v): check the directory and its permissions", spec.Stderr.Path, err)}
		}
		closeAfter = append(closeAfter, f)
		cmd.Stderr = f
	case StderrCapture:
		r, w, err := os.Pipe()
		if err != nil {
			p.closePipes()
			return nil, fmt.Errorf("server %q: creating stderr pipe: %w", spec.Name, err)
		}
		closeAfter = append(closeAfter, w)
		errR = r
		cmd.Stderr = w
		p.ring = NewRing(spec.CaptureLines, spec.CaptureBytes)
	}
	prepareOS(cmd, run)
	osp, err := startOS(cmd)
	cmd.Env = nil // the secrets' values are the OS's now; keep no copy
	env = nil
	wipe()
	if err != nil {
		p.closePipes()
		if errR != nil {
			errR.Close()
		}
		return nil, fmt.Errorf("server %q: starting %q: %w", spec.Name, launch.Path, err)
	}
	osp.token, osp.start = ident.Token, procStart(osp.pid)
	p.osp = osp
	p.started = time.Now()
	if errR != nil {
		p.pumped = make(chan struct{})
		go func() { pump(errR, p.ring); errR.Close(); close(p.pumped) }()
	}
	if p.registry != nil {
		ident.Server, ident.PID, ident.PGID = spec.Name, osp.pid, osp.pid
		ident.Start, ident.Boot = osp.start, bootID()
		p.ident = ident
		if err := p.registry.add(ident); err != nil {
			p.log.Warn("cannot record the server's process group for a later sweep", "error", err)
		}
	}
	go func() {
		p.status = osp.waitExit()
		close(p.exited)
	}()
	p.log.Debug("server started", "pid", osp.pid, "path", launch.Path)
	return p, nil
}

func (p *Process) closePipes() {
	p.stdin.Close()
	p.stdout.Close()
}

// Pid returns the main process's id.
func (p *Process) Pid() int { return p.osp.pid }

// Sandbox says what confines the server: nil when its spec has no
// sandbox; Unconfined when the sandbox could not be applied and the spec
// allowed starting without it.
func (p *Process) Sandbox() *sandbox.Status { return p.sandbox }

// Launch returns what was run.
func (p *Process) Launch() *Launch { return p.launch }

// Spec returns the checked spec the process was started with.
func (p *Process) Spec() *Spec { return &p.spec }

// StartedAt returns when the process was started.
func (p *Process) StartedAt() time.Time { return p.started }

// Stdin is the server's stdin. Closing it is step 1 of the stop ladder.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the server's stdout.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr returns the captured stderr, or nil unless the spec's stderr is
// [StderrCapture].
func (p *Process) Stderr() *Ring { return p.ring }

// Exited is closed when the main process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitStatus says how the main process ended; valid once [Process.Exited]
// is closed.
func (p *Process) ExitStatus() ExitStatus {
	<-p.exited
	return p.status
}

// StderrDrained is closed when captured stderr has been read to its end
// (every process holding it has exited); it never closes unless the spec's
// stderr is [StderrCapture].
func (p *Process) StderrDrained() <-chan struct{} {
	if p.pumped == nil {
		return make(chan struct{})
	}
	return p.pumped
}

// Done is closed when the stop ladder has finished: every process of the
// server's tree is gone, the main process is reaped, and captured stderr
// has been read to its end.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop starts the stop ladder, detached from the caller, and returns
// [Process.Done]. It is safe to call more than once.
func (p *Process) Stop() <-chan struct{} {
	p.stopOnce.Do(func() { go p.ladder() })
	return p.done
}

// killWait bounds the wait for a SIGKILLed tree (a process in
// uninterruptible sleep dies when it wakes).
const killWait = 5 * time.Second

// drainWait bounds the wait for the rest of captured stderr once the tree
// is gone: only a process that left the group can still hold the pipe.
const drainWait = time.Second

// ladder is the shutdown sequence of the MCP specification's stdio
// transport, extended to the whole process tree.
func (p *Process) ladder() {
	defer close(p.done)
	// "the client SHOULD initiate shutdown by: first, closing the input
	// stream to the child process (the server)"
	// Closed on its own goroutine: on Windows, Close can block behind a
	// write stuck on a full pipe, and the timers below must run regardless.
	go p.stdin.Close()
	// "waiting for the server to exit..." (here: the whole tree)
	gone := p.waitGone(p.spec.StdinGrace)
	if !gone && p.osp.terminate() {
		// "...or sending SIGTERM if the server does not exit within a
		// reasonable time" (to the group, with SIGCONT to wake a stopped
		// member)
		p.log.Debug("server did not exit after stdin closed; sent SIGTERM", "grace", p.spec.StdinGrace)
		gone = p.waitGone(p.spec.TermGrace)
	}
	if !gone {
		// "sending SIGKILL if the server does not exit within a reasonable
		// time after SIGTERM"
		p.log.Debug("server tree still running; killing it")
		p.osp.kill()
		if !p.waitGone(killWait) {
			p.log.Warn("server tree survived SIGKILL for 5 s", "pid", p.osp.pid)
		}
	}
	// Only now, with the group signalled, may the main process be reaped:
	// until then its pid and group id cannot be reused.
	p.stopErr = p.osp.release()
	p.stdout.Close()
	if p.pumped != nil {
		// What the server wrote last (a crash report) is in the pipe:
		// let the ring have it before Done.
		t := time.NewTimer(drainWait)
		select {
		case <-p.pumped:
		case <-t.C:
			p.log.Warn("stderr still open after the server's tree ended; a process outside its group holds it")
		}
		t.Stop()
	}
	if p.registry != nil {
		if err := p.registry.remove(p.ident); err != nil {
			p.log.Warn("cannot update the process registry", "error", err)
		}
	}
}

// waitGone waits up to d for the main process to exit and its whole tree
// to be gone.
func (p *Process) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	poll := 2 * time.Millisecond
	for {
		exited := isClosed(p.exited)
		if exited && !p.osp.treeAlive() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(poll, left))
		if exited {
			<-t.C
		} else {
			select {
			case <-p.exited:
			case <-t.C:
			}
		}
		t.Stop()
		poll = min(poll*2, 50*time.Millisecond)
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
