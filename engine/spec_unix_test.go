//go:build unix

package engine

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// specErrors unpacks the joined errors of Check; each must be a *SpecError.
func specErrors(t *testing.T, err error) []*SpecError {
	t.Helper()
	if err == nil {
		return nil
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	var out []*SpecError
	for _, e := range list {
		var se *SpecError
		if !errors.As(e, &se) {
			t.Fatalf("error %q (%T) is not a *SpecError", e, e)
		}
		out = append(out, se)
	}
	return out
}

// checkKeys runs Check and returns the keys of its errors, sorted.
func checkKeys(t *testing.T, s *Spec) ([]string, []*SpecError) {
	t.Helper()
	errs := specErrors(t, s.Check())
	var keys []string
	for _, e := range errs {
		keys = append(keys, e.Key)
	}
	slices.Sort(keys)
	return keys, errs
}

func TestCheckCommand(t *testing.T) {
	bin := t.TempDir()
	tests := []struct {
		name, command string
		wantErr       bool
		contains      []string
	}{
		{"empty", "", true, []string{"command", "required"}},
		{"bare name", "npx", false, nil},
		{"absolute", filepath.Join(bin, "server"), false, nil},
		{"split suggested", "npx -y server", true, []string{`"npx -y server"`, `"npx"`, `["-y","server"]`}},
		{"tab", "uvx\tmcp-server", true, []string{"whitespace"}},
		{"trailing space", "npx ", true, []string{"whitespace"}},
		{"absolute with space", "/opt/my server/bin", true, []string{"whitespace"}},
		{"relative dot", "./server", true, []string{"relative path", "absolute"}},
		{"relative dir", "bin/server", true, []string{"relative path"}},
		{"relative dotdot", "../server", true, []string{"relative path"}},
		{"backslash", `bin\server`, true, []string{"relative path"}},
		{"NUL", "npx\x00", true, []string{"NUL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Spec{Name: "files", Command: tt.command}
			keys, errs := checkKeys(t, &s)
			if !tt.wantErr {
				if len(errs) > 0 {
					t.Fatalf("Check(%q) = %v, want no error", tt.command, errs)
				}
				return
			}
			if !reflect.DeepEqual(keys, []string{"command"}) {
				t.Fatalf("Check(%q) keys = %v, want [command]", tt.command, keys)
			}
			msg := errs[0].Error()
			if !strings.HasPrefix(msg, `server "files": command: `) {
				t.Errorf("message %q does not name the server and the key", msg)
			}
			for _, c := range tt.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("message %q does not contain %q", msg, c)
				}
			}
		})
	}
}

func TestCheckArgsAndEnvNames(t *testing.T) {
	s := Spec{Command: "npx",
		Args:       []string{"ok", "bad\x00"},
		Env:        map[string]EnvValue{"A=B": Literal("x"), "": Literal("y"), "OK": Literal("z\x00")},
		InheritEnv: []string{"HTTPS_PROXY", "NO=PE"},
	}
	keys, _ := checkKeys(t, &s)
	want := []string{"args[1]", "env", "env", "env.OK", "inheritEnv"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
}

func TestCheckCwd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cwd     string
		wantErr string // "" for none
	}{
		{"", ""},
		{dir, ""},
		{"relative/dir", "not absolute"},
		{".", "not absolute"},
		{filepath.Join(dir, "missing"), "does not exist"},
		{file, "not a directory"},
	}
	for _, tt := range tests {
		s := Spec{Command: "npx", Cwd: tt.cwd}
		keys, errs := checkKeys(t, &s)
		if tt.wantErr == "" {
			if len(errs) > 0 {
				t.Errorf("cwd %q: %v, want no error", tt.cwd, errs)
			}
			continue
		}
		if !reflect.DeepEqual(keys, []string{"cwd"}) || !strings.Contains(errs[0].Msg, tt.wantErr) {
			t.Errorf("cwd %q: %v, want one cwd error saying %q", tt.cwd, errs, tt.wantErr)
		}
	}
}

func TestCheckStderr(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		stderr  Stderr
		wantKey string // "" for none
		want    StderrKind
	}{
		{Stderr{}, "", StderrInherit},
		{Stderr{Kind: StderrInherit}, "", StderrInherit},
		{Stderr{Kind: StderrDiscard}, "", StderrDiscard},
		{Stderr{Kind: StderrCapture}, "", StderrCapture},
		{Stderr{Kind: StderrFile, Path: filepath.Join(dir, "server.log")}, "", StderrFile},
		{Stderr{Kind: StderrFile}, "stderr.file", StderrFile},
		{Stderr{Kind: StderrFile, Path: "logs/server.log"}, "stderr.file", StderrFile},
		{Stderr{Kind: StderrFile, Path: filepath.Join(dir, "missing", "server.log")}, "stderr.file", StderrFile},
		{Stderr{Kind: StderrDiscard, Path: filepath.Join(dir, "x")}, "stderr", StderrDiscard},
		{Stderr{Kind: "syslog"}, "stderr", "syslog"},
	}
	for _, tt := range tests {
		s := Spec{Command: "npx", Stderr: tt.stderr}
		keys, errs := checkKeys(t, &s)
		if tt.wantKey == "" {
			if len(errs) > 0 {
				t.Errorf("stderr %+v: %v, want no error", tt.stderr, errs)
			}
		} else if !reflect.DeepEqual(keys, []string{tt.wantKey}) {
			t.Errorf("stderr %+v: keys %v, want [%s]", tt.stderr, keys, tt.wantKey)
		}
		if s.Stderr.Kind != tt.want {
			t.Errorf("stderr %+v: kind after Check = %q, want %q", tt.stderr, s.Stderr.Kind, tt.want)
		}
	}
}

func TestCheckDefaults(t *testing.T) {
	s := Spec{Command: "npx"}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"MaxMessageBytes":  s.MaxMessageBytes,
		"MaxJunkLines":     s.MaxJunkLines,
		"WriteQueueBytes":  s.WriteQueueBytes,
		"StdinGrace":       s.StdinGrace,
		"TermGrace":        s.TermGrace,
		"ProbeTimeout":     s.ProbeTimeout,
		"HandshakeTimeout": s.HandshakeTimeout,
		"MaxReconnects":    s.MaxReconnects,
		"CaptureLines":     s.CaptureLines,
		"CaptureBytes":     s.CaptureBytes,
		"Stderr":           s.Stderr,
	}
	// The reference design's values, written out rather than taken from
	// the constants under test.
	want := map[string]any{
		"MaxMessageBytes":  8388608,
		"MaxJunkLines":     10,
		"WriteQueueBytes":  16 * 1024 * 1024,
		"StdinGrace":       2000 * time.Millisecond,
		"TermGrace":        2000 * time.Millisecond,
		"ProbeTimeout":     3 * time.Second,
		"HandshakeTimeout": 60 * time.Second,
		"MaxReconnects":    5,
		"CaptureLines":     1000,
		"CaptureBytes":     256 * 1024,
		"Stderr":           Stderr{Kind: StderrInherit},
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("default %s = %v, want %v", k, got[k], w)
		}
	}
}

// TestCheckZeroMeansZero: -1 asks for 0 where 0 is allowed, and a checked
// spec stays as it is when checked again (Start checks the spec it is
// given, which a caller may have checked already, or taken from
// Process.Spec to restart a server).
func TestCheckZeroMeansZero(t *testing.T) {
	s := Spec{Command: "npx", MaxJunkLines: -1, StdinGrace: -1, TermGrace: -1, MaxReconnects: -1}
	for i := range 3 {
		if err := s.Check(); err != nil {
			t.Fatalf("Check #%d: %v", i+1, err)
		}
		if s.MaxJunkLines != 0 || s.StdinGrace != 0 || s.TermGrace != 0 || s.MaxReconnects != 0 {
			t.Fatalf("after Check #%d: junk %d, stdin grace %v, term grace %v, reconnects %d; want all 0",
				i+1, s.MaxJunkLines, s.StdinGrace, s.TermGrace, s.MaxReconnects)
		}
	}
	d := Spec{Command: "npx", MaxMessageBytes: 4096, StdinGrace: 300 * time.Millisecond}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	before := d
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, d) {
		t.Errorf("a second Check changed the spec:\n%+v\n%+v", before, d)
	}
}

func TestCheckRanges(t *testing.T) {
	tests := []struct {
		key string
		set func(*Spec)
	}{
		{"maxMessageBytes", func(s *Spec) { s.MaxMessageBytes = 1000 }},
		{"maxMessageBytes", func(s *Spec) { s.MaxMessageBytes = 2 << 30 }},
		{"maxMessageBytes", func(s *Spec) { s.MaxMessageBytes = -1 }},
		{"maxJunkLines", func(s *Spec) { s.MaxJunkLines = -2 }},
		{"maxJunkLines", func(s *Spec) { s.MaxJunkLines = 1_000_001 }},
		{"writeQueueBytes", func(s *Spec) { s.WriteQueueBytes = 10 }},
		{"writeQueueBytes", func(s *Spec) { s.WriteQueueBytes = 2 << 30 }},
		{"maxReconnects", func(s *Spec) { s.MaxReconnects = -5 }},
		{"maxReconnects", func(s *Spec) { s.MaxReconnects = 1001 }},
		{"captureLines", func(s *Spec) { s.CaptureLines = -1 }},
		{"captureLines", func(s *Spec) { s.CaptureLines = 1_000_001 }},
		{"captureBytes", func(s *Spec) { s.CaptureBytes = 100 }},
		{"captureBytes", func(s *Spec) { s.CaptureBytes = 65 << 20 }},
		{"stdinGrace", func(s *Spec) { s.StdinGrace = -5 * time.Millisecond }},
		{"stdinGrace", func(s *Spec) { s.StdinGrace = 11 * time.Minute }},
		{"termGrace", func(s *Spec) { s.TermGrace = -2 }},
		{"termGrace", func(s *Spec) { s.TermGrace = time.Hour }},
		{"probeTimeout", func(s *Spec) { s.ProbeTimeout = -1 }},
		{"probeTimeout", func(s *Spec) { s.ProbeTimeout = 11 * time.Minute }},
		{"handshakeTimeout", func(s *Spec) { s.HandshakeTimeout = -time.Second }},
		{"handshakeTimeout", func(s *Spec) { s.HandshakeTimeout = 2 * time.Hour }},
	}
	for _, tt := range tests {
		s := Spec{Name: "files", Command: "npx"}
		tt.set(&s)
		keys, errs := checkKeys(t, &s)
		if !reflect.DeepEqual(keys, []string{tt.key}) {
			t.Errorf("%s: keys %v, want [%s]", tt.key, keys, tt.key)
			continue
		}
		if msg := errs[0].Error(); !strings.Contains(msg, tt.key) || !strings.Contains(msg, "out of range") {
			t.Errorf("%s: message %q does not name the key and the range", tt.key, msg)
		}
	}
	// The edges of the ranges are allowed.
	s := Spec{Command: "npx", MaxMessageBytes: 1024, MaxJunkLines: 1_000_000, CaptureLines: 1,
		CaptureBytes: 1024, StdinGrace: 10 * time.Minute, ProbeTimeout: time.Millisecond, HandshakeTimeout: time.Hour}
	if err := s.Check(); err != nil {
		t.Errorf("edges of the ranges refused: %v", err)
	}
}

func TestCheckReportsEveryProblem(t *testing.T) {
	s := Spec{Name: "files", Command: "npx -y server", Cwd: "relative", MaxJunkLines: -7,
		Stderr: Stderr{Kind: "bogus"}, TermGrace: time.Hour}
	err := s.Check()
	keys, errs := checkKeys(t, &s)
	want := []string{"command", "cwd", "maxJunkLines", "stderr", "termGrace"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys = %v, want %v (err: %v)", keys, want, err)
	}
	for _, e := range errs {
		if e.Server != "files" || !strings.Contains(err.Error(), e.Error()) {
			t.Errorf("error %q: server %q, or missing from the joined text", e, e.Server)
		}
	}
}

func TestEnvValueString(t *testing.T) {
	v := EnvValue{{Text: "Bearer "}, {Secret: "github"}, {Text: "!"}}
	if got := v.String(); got != "Bearer ${secret:github}!" {
		t.Errorf("String() = %q", got)
	}
	if got := v.Secrets(); !reflect.DeepEqual(got, []string{"github"}) {
		t.Errorf("Secrets() = %v", got)
	}
	if got := SecretRef("x").String(); got != "${secret:x}" {
		t.Errorf("SecretRef String() = %q", got)
	}
}
