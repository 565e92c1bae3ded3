package secrets

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/zalando/go-keyring"
)

// memStore returns a Store over go-keyring's in-memory mock with its index
// in a fresh directory. The mock is process-wide: these tests do not run in
// parallel.
func memStore(t *testing.T) (*Store, string) {
	t.Helper()
	index := filepath.Join(t.TempDir(), "cfg", "switchboard", "secrets.json")
	return NewMemoryStore(index), index
}

func TestValidName(t *testing.T) {
	for _, n := range []string{"gh", "GITHUB_TOKEN", "openai.key", "a", "0", "a-b_c.d", strings.Repeat("x", 64)} {
		if err := ValidName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range []string{"", ".gh", "-gh", "_gh", "a b", "a/b", `a\b`, "a:b", "gh\n", "é", "a$b", "${secret:x}", strings.Repeat("x", 65)} {
		err := ValidName(n)
		if err == nil {
			t.Errorf("%q accepted", n)
			continue
		}
		if KindOf(err) != Invalid || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), NameRule) {
			t.Errorf("%q: %v", n, err)
		}
	}
	s, _ := memStore(t)
	if err := s.Set("bad name", New("v")); KindOf(err) != Invalid || !strings.Contains(err.Error(), "letters, digits") {
		t.Errorf("Set bad name: %v", err)
	}
	if _, err := s.Get("../x"); KindOf(err) != Invalid {
		t.Errorf("Get bad name: %v", err)
	}
	if err := s.Delete(""); KindOf(err) != Invalid {
		t.Errorf("Delete bad name: %v", err)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	s, _ := memStore(t)
	if names, err := s.List(); err != nil || len(names) != 0 {
		t.Fatalf("List of a new store: %v %v", names, err)
	}
	for name, v := range map[string]string{"openai.key": "sk-1", "gh": "ghp-1", "GITHUB_TOKEN": "ghp-2"} {
		if err := s.Set(name, New(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Set("gh", New("ghp-new")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("gh")
	if err != nil || got.Reveal() != "ghp-new" {
		t.Fatalf("Get: %v", err)
	}
	if v, err := keyring.Get(DefaultService, "gh"); err != nil || v != "ghp-new" {
		t.Fatalf("not in the keyring under service %q, user gh: %v", DefaultService, err)
	}
	if v, err := s.Resolve(context.Background(), "openai.key"); err != nil || string(v) != "sk-1" {
		t.Fatalf("Resolve: %v", err)
	}
	names, err := s.List()
	if err != nil || strings.Join(names, ",") != "GITHUB_TOKEN,gh,openai.key" {
		t.Fatalf("List: %v %v", names, err)
	}
	if err := s.Delete("gh"); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(DefaultService, "gh"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatal("Delete left it in the keyring")
	}
	if names, _ := s.List(); strings.Join(names, ",") != "GITHUB_TOKEN,openai.key" {
		t.Fatalf("List after Delete: %v", names)
	}
	if s.Service() != "switchboard" {
		t.Fatal(s.Service())
	}
}

func TestNotFound(t *testing.T) {
	s, _ := memStore(t)
	_, err := s.Get("gh")
	if err == nil || err.Error() != `secret "gh" is not set: run 'switchboard secret set gh'` {
		t.Fatalf("Get missing: %v", err)
	}
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, keyring.ErrNotFound) || errors.Is(err, ErrLocked) || KindOf(err) != NotFound {
		t.Fatalf("errors.Is: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Op != "get" || e.Name != "gh" || e.Kind != NotFound {
		t.Fatalf("As: %#v", e)
	}
	_, err = s.Resolve(context.Background(), "gh")
	if err == nil || err.Error() != `secret "gh" is not set: run 'switchboard secret set gh'` {
		t.Fatalf("Resolve missing: %v", err)
	}
	err = s.Delete("gh")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `secret "gh" is not set`) {
		t.Fatalf("Delete missing: %v", err)
	}
}

func TestEmptyValueRefused(t *testing.T) {
	s, index := memStore(t)
	for _, v := range []Secret{{}, New("")} {
		err := s.Set("gh", v)
		if KindOf(err) != Invalid || !strings.Contains(err.Error(), `secret "gh"`) || !strings.Contains(err.Error(), "empty") {
			t.Fatalf("empty value: %v", err)
		}
	}
	if _, err := os.Stat(index); err == nil {
		t.Fatal("index written for a refused value")
	}
}

// A NUL byte is refused before anything is written (the host's API and
// the command line both store through Set): a server could never get it.
func TestNULValueRefused(t *testing.T) {
	s, index := memStore(t)
	err := s.Set("gh", New("ghp_a\x00b"))
	if KindOf(err) != Invalid || !errors.Is(err, ErrInvalid) {
		t.Fatalf("NUL value: want Invalid, got %v", err)
	}
	for _, w := range []string{`secret "gh"`, "NUL"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "ghp_a") {
		t.Errorf("error %q holds the value", err)
	}
	if _, err := s.Get("gh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused value reached the keyring: %v", err)
	}
	if _, err := os.Stat(index); err == nil {
		t.Fatal("index written for a refused value")
	}
}

func TestIndexFile(t *testing.T) {
	s, index := memStore(t)
	values := map[string]string{"gh": "ghp_VALUE_ONE", "openai.key": "sk-VALUE-TWO", "x": "VALUE3"}
	for n, v := range values {
		if err := s.Set(n, New(v)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if strings.Contains(string(b), v) {
			t.Fatalf("the index holds a value: %s", b)
		}
	}
	var f struct {
		Version int
		Service string
		Names   []string
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 || f.Service != "switchboard" || strings.Join(f.Names, ",") != "gh,openai.key,x" {
		t.Fatalf("index: %s %v", b, err)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(index)
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("index mode %v", fi.Mode().Perm())
		}
		di, _ := os.Stat(filepath.Dir(index))
		if di.Mode().Perm() != 0o700 {
			t.Fatalf("index dir mode %v", di.Mode().Perm())
		}
		// A looser existing file is replaced by a 0600 one.
		if err := os.Chmod(index, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.Set("y", New("VALUE4")); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(index); fi.Mode().Perm() != 0o600 {
			t.Fatalf("index mode after rewrite %v", fi.Mode().Perm())
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(index))
	for _, e := range ents {
		if e.Name() != "secrets.json" && e.Name() != "secrets.json.lock" {
			t.Errorf("stray file %s", e.Name())
		}
	}
}

func TestDamagedIndex(t *testing.T) {
	s, index := memStore(t)
	if err := os.MkdirAll(filepath.Dir(index), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := s.Set("gh", New("v"))
	if KindOf(err) != Other || !strings.Contains(err.Error(), index) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Set with a damaged index: %v", err)
	}
	if _, err := keyring.Get(DefaultService, "gh"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatal("Set wrote the keyring although the index is damaged")
	}
	if _, err := s.List(); KindOf(err) != Other || !strings.Contains(err.Error(), "secret names cannot be listed") {
		t.Fatalf("List with a damaged index: %v", err)
	}
}

func TestDeleteNameGoneFromKeyring(t *testing.T) {
	s, _ := memStore(t)
	if err := s.Set("gh", New("v")); err != nil {
		t.Fatal(err)
	}
	if err := keyring.Delete(DefaultService, "gh"); err != nil { // behind the store's back
		t.Fatal(err)
	}
	if names, _ := s.List(); strings.Join(names, ",") != "gh" {
		t.Fatalf("List reads the index only: %v", names)
	}
	if err := s.Delete("gh"); err != nil {
		t.Fatalf("Delete of a stale name: %v", err)
	}
	if names, _ := s.List(); len(names) != 0 {
		t.Fatalf("stale name kept: %v", names)
	}
	if err := s.Delete("gh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
}

func TestConcurrentSet(t *testing.T) {
	s, index := memStore(t)
	other := NewStore("", index) // a second Store on the same index, as another caller would have
	other.checkBus = nil
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			st := s
			if i%2 == 1 {
				st = other
			}
			if err := st.Set("name"+strconv.Itoa(i), New("value-"+strconv.Itoa(i))); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := s.Set("shared", New("v"+strconv.Itoa(i))); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := s.List(); err != nil {
				t.Error(err)
			}
			_, _ = s.Get("shared")
		}()
	}
	wg.Wait()
	names, err := s.List()
	if err != nil || len(names) != n+1 {
		t.Fatalf("List after concurrent Sets: %d names, %v", len(names), err)
	}
	for i := range n {
		v, err := s.Get("name" + strconv.Itoa(i))
		if err != nil || v.Reveal() != "value-"+strconv.Itoa(i) {
			t.Fatalf("name%d: %v", i, err)
		}
	}
}

// TestIndexAcrossProcesses runs several processes that add names to one
// index file at the same time (each with its own in-memory keyring): the
// file lock must keep every name.
func TestIndexAcrossProcesses(t *testing.T) {
	if os.Getenv("SWITCHBOARD_INDEX_CHILD") != "" {
		t.Skip("child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "cfg", "secrets.json")
	const procs, each = 4, 25
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^TestIndexChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SWITCHBOARD_INDEX_CHILD="+index, "SWITCHBOARD_INDEX_PREFIX=p"+strconv.Itoa(p)+"-", "SWITCHBOARD_INDEX_COUNT="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %d: %v\n%s", p, err, out)
			}
		}()
	}
	wg.Wait()
	names, err := NewStore("", index).List()
	if err != nil || len(names) != procs*each {
		t.Fatalf("%d processes x %d Sets: index has %d names (%v)", procs, each, len(names), err)
	}
}

func TestIndexChild(t *testing.T) {
	index := os.Getenv("SWITCHBOARD_INDEX_CHILD")
	if index == "" {
		t.Skip("run by TestIndexAcrossProcesses")
	}
	s := NewMemoryStore(index)
	n, _ := strconv.Atoi(os.Getenv("SWITCHBOARD_INDEX_COUNT"))
	for i := range n {
		if err := s.Set(os.Getenv("SWITCHBOARD_INDEX_PREFIX")+strconv.Itoa(i), New("v")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTooBigRefusedBeforeWriting(t *testing.T) {
	for _, tc := range []struct {
		goos  string
		limit int
		where string
	}{
		{"windows", 2560, "Windows Credential Manager"},
		{"darwin", -1, "macOS Keychain"},
		{"linux", 64 << 10, "Secret Service"},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			s, index := memStore(t)
			s.goos = tc.goos
			limit := tc.limit
			if limit < 0 {
				limit, _ = valueLimit("darwin", DefaultService, "gh")
			}
			err := s.Set("gh", New(strings.Repeat("a", limit+1)))
			if KindOf(err) != TooBig || !errors.Is(err, ErrTooBig) || !errors.Is(err, keyring.ErrSetDataTooBig) {
				t.Fatalf("over the limit: %v", err)
			}
			msg := err.Error()
			for _, want := range []string{`secret "gh"`, strconv.Itoa(limit) + " bytes", strconv.Itoa(limit+1) + " bytes", tc.where} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, "aaaa") {
				t.Error("the value is in the error")
			}
			if _, err := keyring.Get(DefaultService, "gh"); !errors.Is(err, keyring.ErrNotFound) {
				t.Fatal("a refused value reached the keyring")
			}
			if _, err := os.Stat(index); err == nil {
				t.Fatal("a refused value reached the index")
			}
			if err := s.Set("gh", New(strings.Repeat("a", limit))); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
		})
	}
}

// The macOS figure matches go-keyring's own rule: the command it sends to
// 'security -i' must not exceed 4096 bytes.
func TestDarwinLimitMatchesGoKeyring(t *testing.T) {
	for _, name := range []string{"gh", "openai.key", strings.Repeat("n", 64)} {
		for _, service := range []string{"switchboard", "my service's name"} {
			limit, _ := valueLimit("darwin", service, name)
			cmdLen := func(n int) int {
				pw := "go-keyring-base64:" + base64.StdEncoding.EncodeToString(make([]byte, n))
				return len(fmt.Sprintf("add-generic-password -U -s %s -a %s -w %s\n", shellQuote(service), shellQuote(name), shellQuote(pw)))
			}
			if cmdLen(limit) > 4096 || cmdLen(limit+1) <= 4096 {
				t.Errorf("%s/%s: limit %d gives %d bytes, limit+1 gives %d", service, name, limit, cmdLen(limit), cmdLen(limit+1))
			}
			if limit < 2900 || limit > 3100 {
				t.Errorf("%s/%s: limit %d is not about 3000", service, name, limit)
			}
		}
	}
	if shellQuote("it's") != `'it'"'"'s'` || shellQuote("") != "''" || shellQuote("a.b-c") != "a.b-c" {
		t.Error("shellQuote")
	}
}

func TestErrorNeverHoldsTheValue(t *testing.T) {
	const v = "ghp_LEAKY_value_42"
	s, _ := memStore(t)
	keyringMu.Lock()
	keyring.MockInitWithError(fmt.Errorf("backend refused %q", v))
	keyringMu.Unlock()
	err := s.Set("gh", New(v))
	if err == nil || strings.Contains(err.Error(), v) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), v) {
		t.Fatalf("the value reached the error: %v", err)
	}
	if !strings.Contains(err.Error(), `secret "gh" cannot be stored`) {
		t.Fatalf("%v", err)
	}
}

func TestErrorTexts(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want []string
	}{
		{&Error{Op: "get", Name: "gh", Kind: NotFound}, []string{`secret "gh" is not set: run 'switchboard secret set gh'`}},
		{&Error{Op: "get", Name: "gh", Kind: NoProvider, Err: dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}}},
			[]string{`secret "gh" cannot be read`, "no Secret Service (keyring) is running on the D-Bus session bus", "gnome-keyring", "KeePassXC", "unlock"}},
		{&Error{Op: "set", Name: "gh", Kind: NoProvider, Err: fmt.Errorf("%w: x", errNoBus)}, []string{`secret "gh" cannot be stored`, "no D-Bus session bus", "gnome-keyring"}},
		{&Error{Op: "resolve", Name: "gh", Kind: Locked, Err: errors.New("failed to unlock correct collection '/x'")}, []string{`secret "gh" cannot be read`, "locked", "unlock the keyring"}},
		{&Error{Op: "set", Name: "gh", Kind: TooBig, Err: &tooBigError{3000, 2560, "the Windows Credential Manager"}}, []string{`secret "gh" cannot be stored`, "3000 bytes", "at most 2560 bytes"}},
		{&Error{Op: "delete", Name: "gh", Kind: Other, Err: errors.New("boom")}, []string{`secret "gh" cannot be deleted: boom`}},
		{&Error{Op: "list", Kind: Other, Err: errors.New("boom")}, []string{"secret names cannot be listed: boom"}},
	} {
		msg := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q lacks %q", msg, w)
			}
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Kind
	}{
		{keyring.ErrNotFound, NotFound},
		{fmt.Errorf("x: %w", keyring.ErrNotFound), NotFound},
		{keyring.ErrSetDataTooBig, TooBig},
		{keyring.ErrUnsupportedPlatform, NoProvider},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}}, NoProvider},
		{&dbus.Error{Name: "org.freedesktop.DBus.Error.NameHasNoOwner"}, NoProvider},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.Spawn.ChildExited"}, NoProvider},
		{errors.New("The name org.freedesktop.secrets was not provided by any .service files"), NoProvider},
		{errors.New("dbus: couldn't determine address of session bus"), NoProvider},
		{&net.OpError{Op: "dial", Net: "unix", Err: errors.New("connect: connection refused")}, NoProvider},
		{fmt.Errorf("%w: no bus", errNoBus), NoProvider},
		{errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), Locked},
		{dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked", Body: []any{"Cannot get secret of a locked object"}}, Locked},
		{errors.New("exit status 1"), Other},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.NoReply"}, Other},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.err, got, tc.want)
		}
	}
	if KindOf(errors.New("x")) != Other || KindOf(fmt.Errorf("w: %w", &Error{Kind: Locked})) != Locked {
		t.Error("KindOf")
	}
	for k := Other; k <= Invalid; k++ {
		if k.String() == "" {
			t.Error("Kind.String")
		}
	}
}

func TestSessionBusCheck(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("no D-Bus")
	}
	dir := t.TempDir()
	old := runUserDir
	t.Cleanup(func() { runUserDir = old })
	runUserDir = func() string { return dir }
	t.Setenv("XDG_RUNTIME_DIR", "")

	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	if err := sessionBusCheck(); err != nil {
		t.Fatalf("address set: %v", err)
	}
	for _, a := range []string{"", "autolaunch:"} {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", a)
		err := sessionBusCheck()
		if !errors.Is(err, errNoBus) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS is not set") {
			t.Fatalf("address %q: %v", a, err)
		}
	}
	// A bus socket only under XDG_RUNTIME_DIR: godbus would not find it.
	xdg := t.TempDir()
	if err := os.WriteFile(filepath.Join(xdg, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	if err := sessionBusCheck(); !errors.Is(err, errNoBus) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(xdg, "bus")) {
		t.Fatalf("bus only in XDG_RUNTIME_DIR: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dbus-session"), []byte("DBUS_SESSION_BUS_ADDRESS=unix:abstract=/tmp/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sessionBusCheck(); err != nil {
		t.Fatalf("dbus-session file: %v", err)
	}
	os.Remove(filepath.Join(dir, "dbus-session"))
	if err := os.WriteFile(filepath.Join(dir, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sessionBusCheck(); err != nil {
		t.Fatalf("/run/user/UID/bus: %v", err)
	}

	// A Store with the check refuses before go-keyring (here the mock) is
	// touched.
	os.Remove(filepath.Join(dir, "bus"))
	t.Setenv("XDG_RUNTIME_DIR", "")
	s, index := memStore(t)
	s.checkBus = sessionBusCheck
	for _, err := range []error{
		s.Set("gh", New("v")),
		s.Delete("gh"),
		func() error { _, err := s.Get("gh"); return err }(),
		func() error { _, err := s.Resolve(context.Background(), "gh"); return err }(),
	} {
		if KindOf(err) != NoProvider || !errors.Is(err, ErrNoProvider) {
			t.Fatalf("no bus: %v", err)
		}
	}
	if _, err := keyring.Get(DefaultService, "gh"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatal("Set reached the keyring without a bus")
	}
	if _, err := os.Stat(index); err == nil {
		t.Fatal("index written without a bus")
	}
}

func TestResolveContext(t *testing.T) {
	s, _ := memStore(t)
	if err := s.Set("gh", New("v")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Resolve(ctx, "gh"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	// A keyring that does not answer (a pending unlock prompt): Resolve
	// gives up when ctx ends.
	keyringMu.Lock()
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Resolve(ctx, "gh")
	keyringMu.Unlock()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `secret "gh" cannot be read`) || time.Since(start) > 5*time.Second {
		t.Fatalf("blocked keyring: %v", err)
	}
}

// The engine gets the values through a *Store, and a missing secret becomes
// an engine.SecretError that carries this package's message.
func TestEngineResolver(t *testing.T) {
	s, _ := memStore(t)
	if err := s.Set("gh", New("ghp_engine")); err != nil {
		t.Fatal(err)
	}
	spec := &engine.Spec{Name: "github", Env: map[string]engine.EnvValue{
		"GITHUB_TOKEN": {{Secret: "gh"}},
		"AUTH":         {{Text: "Bearer "}, {Secret: "gh"}},
	}}
	env, _, err := engine.BuildEnv(context.Background(), spec, nil, "", runtime.GOOS, s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(env, "|") != "AUTH=Bearer ghp_engine|GITHUB_TOKEN=ghp_engine" {
		t.Fatalf("env: %v", env)
	}
	spec.Env["OTHER"] = engine.EnvValue{{Secret: "missing"}}
	_, _, err = engine.BuildEnv(context.Background(), spec, nil, "", runtime.GOOS, s)
	var se *engine.SecretError
	if !errors.As(err, &se) || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `secret "missing" is not set`) {
		t.Fatalf("missing secret through the engine: %v", err)
	}
}

func TestPinSessionBus(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("no D-Bus")
	}
	dir := t.TempDir()
	old := runUserDir
	t.Cleanup(func() { runUserDir = old })
	runUserDir = func() string { return dir }
	t.Setenv("XDG_RUNTIME_DIR", "")

	// godbus finds a bus: nothing is set.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/some/bus")
	if got := PinSessionBus(); got != "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "unix:path=/some/bus" {
		t.Fatalf("with an address: set %q", got)
	}
	// None anywhere: the standard socket, where a later bus is found.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	want := "unix:path=" + filepath.Join(dir, "bus")
	if got := PinSessionBus(); got != want || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != want {
		t.Fatalf("no bus: set %q, want %q", got, want)
	}
	// Only under XDG_RUNTIME_DIR (which godbus does not read): that one.
	xdg := t.TempDir()
	if err := os.WriteFile(filepath.Join(xdg, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "autolaunch:")
	want = "unix:path=" + filepath.Join(xdg, "bus")
	if got := PinSessionBus(); got != want || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != want {
		t.Fatalf("bus in XDG_RUNTIME_DIR: set %q, want %q", got, want)
	}
}
