package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// Package-cache warming (issue 15 §4, docs/sleep.md). An entry that runs
// a package through npx downloads it, with its dependencies, on its first
// start: on a cold cache that takes seconds to minutes, longer than the
// probe and handshake timeouts, and the start fails (a known failure of
// cold npx starts). So when such an entry is added (or changed to another
// package), the host first runs npx once to fill its cache without running
// the server ("npx --yes --package=PKG -- node -e 0", which installs into
// the same _npx folder as "npx -y PKG ..."), and only then starts the
// server, or restarts it on the changed entry: the old version keeps
// serving while the new one downloads.
//
// A warmed entry is remembered (warm.json in the state directory, by a
// hash of its command, package arguments, folder and plain environment),
// so a host restart does not warm again. A warm-up that fails (a package
// that does not exist, no network) is logged in the server's stderr and
// the server is started anyway: its own start gives the error the user
// acts on. The warm-up runs with the engine's hardened spawn (no shell,
// the environment allowlist, the stop ladder) and without the entry's
// secrets, which npm does not need.
//
// uvx is not warmed: uv could not be installed on the machines this was
// built on, so its warm-up command could not be checked. Decided: warm
// only what was seen to work.

// warmTimeout bounds one warm-up; past it the warm-up is stopped and the
// server started anyway.
const warmTimeout = 10 * time.Minute

// warmer runs warm-ups and remembers which entries are warm.
type warmer struct {
	start engine.StartOptions
	log   *slog.Logger
	path  string // warm.json; "": remember in memory only

	mu      sync.Mutex
	warm    map[string]time.Time       // warmed keys, when
	running map[string]*engine.Process // by key
	closing bool
	wg      sync.WaitGroup
}

func newWarmer(start engine.StartOptions, log *slog.Logger, path string) *warmer {
	w := &warmer{start: start, log: log, path: path, warm: map[string]time.Time{}, running: map[string]*engine.Process{}}
	if path != "" {
		if b, err := os.ReadFile(path); err == nil {
			var saved map[string]time.Time
			if json.Unmarshal(b, &saved) == nil {
				w.warm = saved
			}
		}
	}
	return w
}

// warmSpec returns the spec of the warm-up of spec, its key and the
// packages it fetches; ok is false if spec needs none (not npx, or npx
// told not to install).
func warmSpec(spec engine.Spec) (ws engine.Spec, key string, pkgs []string, ok bool) {
	if !isNpx(spec.Command) {
		return ws, "", nil, false
	}
	args, pkgs, ok := npxWarmArgs(spec.Args)
	if !ok {
		return ws, "", nil, false
	}
	ws = spec
	ws.Name = spec.Name + " (package download)"
	ws.Args = args
	ws.Env = map[string]engine.EnvValue{}
	for k, v := range spec.Env {
		if !slices.ContainsFunc(v, func(p engine.EnvPart) bool { return p.Secret != "" }) {
			ws.Env[k] = v
		}
	}
	ws.Stderr = engine.Stderr{Kind: engine.StderrCapture}
	if ws.Sandbox.Enabled {
		// The npx cache is read-only to a sandboxed server (a server that
		// could write there would plant code that runs unconfined later),
		// so the host fills it, outside the sandbox, with the package's
		// install scripts off: no code of the package runs unconfined.
		// npm reads ~/.npmrc here (the host's), which the server never can.
		ws.Sandbox = sandbox.Policy{}
		ws.Env["npm_config_ignore_scripts"] = engine.Literal("true")
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode([]any{filepath.Base(spec.Command), args, spec.Cwd, ws.Env, spec.InheritEnv})
	return ws, hex.EncodeToString(h.Sum(nil)[:12]), pkgs, true
}

// isNpx reports whether command runs npx (npx, npx.cmd, a path to one).
func isNpx(command string) bool {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(command, `\`, "/")))
	for _, ext := range []string{".cmd", ".exe", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base == "npx"
}

// npxValueFlags are npx's and npm's options that take a value in the next
// argument ("--registry URL"); the others are switches or "--key=value".
var npxValueFlags = map[string]bool{
	"-p": true, "--package": true, "-c": true, "--call": true,
	"--registry": true, "--cache": true, "--userconfig": true, "--globalconfig": true,
	"--prefix": true, "--loglevel": true, "-w": true, "--workspace": true,
	"--node-options": true, "--script-shell": true,
}

// npxWarmArgs turns the arguments of an npx entry into those of its
// warm-up: the same packages (--package, or the first argument that is
// not an option) and the same npm options, running "node -e 0" instead of
// the server. ok is false if the entry forbids installing (--no,
// --no-install, --offline) or names no package.
func npxWarmArgs(args []string) (warm, pkgs []string, ok bool) {
	var opts []string
	var first string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if first == "" && i+1 < len(args) {
				first = args[i+1]
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			first = a
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "--no", "--no-install", "--offline", "--no-yes":
			return nil, nil, false
		case "-y", "--yes", "-q", "--quiet", "--ignore-existing":
			continue
		}
		if !hasValue && npxValueFlags[name] && i+1 < len(args) {
			i++
			value, hasValue = args[i], true
		}
		switch name {
		case "-p", "--package":
			if hasValue {
				pkgs = append(pkgs, value)
			}
		case "-c", "--call":
			// A shell command run with the --package packages.
		default:
			if hasValue {
				opts = append(opts, name+"="+value)
			} else {
				opts = append(opts, name)
			}
		}
	}
	if len(pkgs) == 0 {
		if first == "" {
			return nil, nil, false
		}
		pkgs = []string{first}
	}
	warm = []string{"--yes"}
	for _, p := range pkgs {
		warm = append(warm, "--package="+p)
	}
	warm = append(warm, opts...)
	warm = append(warm, "--", "node", "-e", "0")
	return warm, pkgs, true
}

// needs reports whether the entry's package must be fetched before it
// starts, and the warm-up's spec, key and packages.
func (w *warmer) needs(spec engine.Spec) (ws engine.Spec, key string, pkgs []string, ok bool) {
	if w == nil {
		return ws, "", nil, false
	}
	ws, key, pkgs, ok = warmSpec(spec)
	if !ok {
		return ws, "", nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, done := w.warm[key]
	return ws, key, pkgs, !done && !w.closing
}

// run runs one warm-up to its end, writing its progress and its stderr to
// logs, and reports whether it succeeded. A warm-up of the same key that
// already runs is waited for instead.
func (w *warmer) run(ws engine.Spec, key string, pkgs []string, logs *engine.Ring) bool {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return false
	}
	w.wg.Add(1)
	defer w.wg.Done()
	if p := w.running[key]; p != nil {
		w.mu.Unlock()
		<-p.Done()
		w.mu.Lock()
		_, ok := w.warm[key]
		w.mu.Unlock()
		return ok
	}
	what := strings.Join(pkgs, ", ")
	say := func(s string) { logs.Add(engine.Line{Time: time.Now(), Text: s}) }
	say(fmt.Sprintf("--- fetching the npm package %s before the first start (npx) ---", what))
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), warmTimeout)
	defer cancel()
	p, err := engine.Start(ctx, ws, w.start)
	if err != nil {
		w.mu.Unlock()
		say(fmt.Sprintf("--- could not fetch %s: %v; starting the server anyway ---", what, err))
		w.log.Warn("package warm-up failed", "server", ws.Name, "err", err)
		return false
	}
	w.running[key] = p
	w.mu.Unlock()
	p.Stdin().Close()
	go io.Copy(io.Discard, p.Stdout()) //nolint:errcheck // drained until it closes
	select {
	case <-p.Exited():
	case <-ctx.Done():
	}
	<-p.Stop() // ends the rest of its tree, and reaps it
	<-p.StderrDrained()
	for _, l := range p.Stderr().Entries() {
		logs.Add(l)
	}
	st := p.ExitStatus()
	ok := st.Exited && st.Code == 0
	w.mu.Lock()
	delete(w.running, key)
	if ok {
		w.warm[key] = time.Now()
		w.save()
	}
	w.mu.Unlock()
	took := time.Since(began).Round(100 * time.Millisecond)
	if ok {
		say(fmt.Sprintf("--- fetched %s in %s ---", what, took))
		w.log.Info("package warm-up done", "server", ws.Name, "packages", what, "took", took)
	} else {
		if ctx.Err() != nil {
			st = engine.ExitStatus{Signal: "stopped after " + warmTimeout.String()}
		}
		say(fmt.Sprintf("--- could not fetch %s (%s); starting the server anyway ---", what, st))
		w.log.Warn("package warm-up failed", "server", ws.Name, "packages", what, "status", st.String())
	}
	return ok
}

// save writes the warmed keys; under w.mu. A failed write only costs a
// warm-up again after a restart.
func (w *warmer) save() {
	if w.path == "" {
		return
	}
	b, err := json.Marshal(w.warm)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(w.path), 0o700)
	}
	if err == nil {
		tmp := w.path + ".tmp"
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, w.path)
		}
	}
	if err != nil {
		w.log.Warn("could not remember warmed packages", "path", w.path, "err", err)
	}
}

// close stops the running warm-ups and waits for them.
func (w *warmer) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closing = true
	var stops []<-chan struct{}
	for _, p := range w.running {
		stops = append(stops, p.Stop())
	}
	w.mu.Unlock()
	for _, s := range stops {
		<-s
	}
	w.wg.Wait()
}

// deferForWarm starts the warm-up of c's package if it needs one, and
// reports whether the server's start (or update) is left to the warm-up,
// which settles the server on its entry of that moment when it ends. A
// server whose warm-up already runs is always left to it. Under m.mu.
func (s *server) deferForWarm(c ServerConfig) bool {
	m := s.reg
	if s.warmingNow() != "" {
		return true
	}
	ws, key, pkgs, ok := m.warm.needs(c.Spec)
	if !ok {
		return false
	}
	s.setWarming(strings.Join(pkgs, ", "))
	go func() {
		m.warm.run(ws, key, pkgs, s.logs)
		s.settle(key)
	}()
	return true
}

// settle brings a server whose warm-up of key ended (well or not) to its
// current entry: the spec is updated (a running older version restarts
// with it), and the server starts unless it is disabled or the user
// stopped it. An entry changed meanwhile to another package is warmed
// first; one whose warm-up failed is not warmed again here.
func (s *server) settle(key string) {
	m := s.reg
	m.mu.Lock()
	defer s.publishState()
	defer m.mu.Unlock()
	s.setWarming("")
	c, userStopped := s.config()
	if m.closing || m.servers[c.Name] != s || s.sup == nil {
		return
	}
	if _, k, _, ok := m.warm.needs(c.Spec); ok && k != key && s.deferForWarm(c) {
		return // changed meanwhile to another package
	}
	s.sup.Update(c.Spec)
	if !c.Disabled && !userStopped && s.mustStart(c) {
		s.sup.Start() // an on-demand server with lists to learn too (sleep.go)
	}
}

// preparing says what the server waits for before its start, if anything.
func (s *server) preparing() string {
	if w := s.warmingNow(); w != "" {
		return "fetching the npm package " + w
	}
	return ""
}

func (s *server) warmingNow() string {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return s.warming
}

func (s *server) setWarming(w string) {
	s.cacheMu.Lock()
	s.warming = w
	s.cacheMu.Unlock()
}
