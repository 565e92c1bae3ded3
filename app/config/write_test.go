package config

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

var update_ = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestRoundTripKeepsUnknown(t *testing.T) {
	orig, err := os.ReadFile("testdata/roundtrip.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	// Unchanged, the file comes back byte for byte.
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, orig) {
		t.Fatalf("load and save changed the file:\n%s", out)
	}
	if got, want := f.Names(), []string{"zeta", "alpha", "remote", "broken", "Not Valid"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}

	// Changed, only the changes differ.
	if err := f.SetDisabled("alpha", true); err != nil {
		t.Fatal(err)
	}
	f.Servers["alpha"].Env["NEW"] = "${keyring:new}"
	f.Servers["alpha"].Env["A_FIRST"] = "a"
	f.SetServer("added", &Server{Command: "node", Args: []string{"x.js"}, Numbers: map[string]int{"termGrace": 0}, Stderr: &Stderr{Kind: "file", File: "/tmp/log"}})
	f.SetServer("zeta", &Server{Command: "uvx", Args: []string{"mcp-server-time", "--local-timezone=UTC"}}) // from scratch: keeps futureOption
	if err := f.SetDisabled("zeta", true); err != nil {
		t.Fatal(err)
	}
	if !f.RemoveServer("Not Valid") || f.RemoveServer("Not Valid") {
		t.Error("RemoveServer")
	}
	if err := f.SetDisabled("remote", true); err != nil { // a remote entry is a server like the others
		t.Errorf("SetDisabled of a remote entry: %v", err)
	}
	if err := f.SetDisabled("nope", true); err == nil || err.Error() != `no server named "nope" in the configuration` {
		t.Errorf("SetDisabled of a missing entry: %v", err)
	}
	out, err = f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/roundtrip.golden.json", out)

	// The result reads back to the same servers.
	g, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Names(), []string{"zeta", "alpha", "remote", "broken", "added"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names after = %v, want %v", got, want)
	}
	// A disabled entry read from the file, enabled again, loses the key
	// rather than keep "disabled": false; the other disabled one keeps it.
	if err := g.SetDisabled("alpha", false); err != nil {
		t.Fatal(err)
	}
	b, err := g.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(`"disabled"`)); n != 2 || bytes.Contains(b, []byte(`"disabled": false`)) {
		t.Fatalf("after enabling alpha, %d disabled keys:\n%s", n, b)
	}
	if !g.Servers["zeta"].Disabled || g.Servers["added"].Numbers["termGrace"] != 0 {
		t.Error("changes lost")
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update_ {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update to rewrite):\n%s", path, got)
	}
}

func TestNewMarshal(t *testing.T) {
	out, err := New().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"version\": 1,\n  \"mcpServers\": {}\n}\n"; string(out) != want {
		t.Errorf("New().Marshal() = %q, want %q", out, want)
	}
	if New().Sum() != (Sum{}) {
		t.Error("New().Sum() is not the zero Sum")
	}
	// Commands keep their & and <, unescaped.
	f := New()
	f.SetServer("a", &Server{Command: "x", Args: []string{"a&b<c>"}})
	out, _ = f.Marshal()
	if !bytes.Contains(out, []byte(`"a&b<c>"`)) {
		t.Errorf("HTML-escaped: %s", out)
	}
}

func TestUpdateWritesAtomically(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	base := t.TempDir()
	tests := []struct {
		name    string
		prepare func(path string)
	}{
		{"missing dir", func(string) {}},
		{"existing 0644 file", func(path string) {
			os.MkdirAll(filepath.Dir(path), 0o755)
			writeFile(t, path, `{"mcpServers": {"old": {"command": "node"}}}`)
			os.Chmod(path, 0o644)
		}},
		{"empty file", func(path string) {
			os.MkdirAll(filepath.Dir(path), 0o755)
			writeFile(t, path, "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "_"), "switchboard")
			path := filepath.Join(dir, "config.json")
			tt.prepare(path)
			if err := Update(path, func(f *File) error {
				f.SetServer("files", &Server{Command: "npx"})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
			}
			if di, _ := os.Stat(dir); tt.name == "missing dir" && di.Mode().Perm() != 0o700 {
				t.Errorf("created dir mode %v, want 0700", di.Mode().Perm())
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{"config.json", "config.json.lock"}; !reflect.DeepEqual(names, want) {
				t.Errorf("dir holds %v, want %v (no temporary file left)", names, want)
			}
			f, err := Load(path)
			if err != nil || f.Servers["files"] == nil || (tt.name == "existing 0644 file") != (f.Servers["old"] != nil) {
				t.Errorf("Load after Update: %v %v", f, err)
			}
		})
	}
}

// A symbolic link (a dotfiles manager's) stays a link to the written file.
func TestUpdateThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "config.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	writeFile(t, real, `{}`)
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := Update(link, func(f *File) error { f.SetServer("a", &Server{Command: "x"}); return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if f, err := Load(real); err != nil || f.Servers["a"] == nil {
		t.Errorf("the target was not written: %v", err)
	}
}

// Update notices a change made between its read and its rename by a writer
// that does not take the lock (an editor), starts over once, then gives up.
func TestUpdateDetectsConcurrentChange(t *testing.T) {
	tests := []struct {
		name     string
		changes  int // how many calls of fn change the file behind Update's back
		wantErr  string
		wantKeys []string
	}{
		{"no change", 0, "", []string{"base", "mine"}},
		{"changed once: retried on the new content", 1, "", []string{"base", "ext-1", "mine"}},
		{"changed twice: fails", 2, "changed while it was being updated (another program is writing it): nothing was written; try again", []string{"base", "ext-1", "ext-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			writeFile(t, path, `{"mcpServers": {"base": {"command": "node"}}}`)
			calls := 0
			err := Update(path, func(f *File) error {
				calls++
				if calls <= tt.changes {
					// The editor adds a server in place, as it writes.
					g, _ := Load(path)
					g.SetServer("ext-"+itoa(calls), &Server{Command: "node"})
					data, _ := g.Marshal()
					writeFile(t, path, string(data))
				}
				f.SetServer("mine", &Server{Command: "node"})
				return nil
			})
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.HasSuffix(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want ...%q", err, tt.wantErr)
			}
			if want := min(tt.changes+1, 2); calls != want {
				t.Errorf("fn called %d times, want %d", calls, want)
			}
			f, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Names(); !reflect.DeepEqual(got, tt.wantKeys) {
				t.Errorf("servers = %v, want %v", got, tt.wantKeys)
			}
		})
	}
}

func TestUpdateRefuses(t *testing.T) {
	tests := []struct {
		name, content string
		fnErr         error
		wantErr       string
	}{
		{"syntax error", `{"mcpServers": {`, nil, "is not changed until it can be read: "},
		{"newer version", `{"version": 9}`, nil, "is not changed until it can be read: version: 9 is newer than this Switchboard understands (1): update Switchboard"},
		{"fn fails", `{}`, errors.New("no such server"), "no such server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			writeFile(t, path, tt.content)
			err := Update(path, func(f *File) error { f.SetServer("x", &Server{Command: "y"}); return tt.fnErr })
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("the file was changed: %s", got)
			}
		})
	}
	// The syntax error names the position.
	path := filepath.Join(t.TempDir(), "config.json")
	writeFile(t, path, "{\n  \"a\": ,\n}")
	err := Update(path, func(*File) error { return nil })
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 8 {
		t.Errorf("err = %v, want a *SyntaxError at 2:8", err)
	}
}

func TestUpdateLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	held := flock.New(path + ".lock")
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}

	// A writer waits for the lock...
	done := make(chan error, 1)
	go func() {
		done <- update(path, func(f *File) error { f.SetServer("a", &Server{Command: "x"}); return nil }, updateOptions{lockTimeout: 20 * time.Second})
	}()
	select {
	case err := <-done:
		t.Fatalf("Update did not wait for the lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	// ...and gives up after its timeout with a clear message...
	err := update(path, func(*File) error { return nil }, updateOptions{lockTimeout: 50 * time.Millisecond})
	if want := "another program has been updating " + path + " for 50ms (it holds " + path + ".lock): try again when it is done"; errString(err) != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	// ...or goes on once it is released.
	held.Unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Update still waits after the lock was released")
	}

	// Concurrent writers take turns: none loses another's change.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Update(path, func(f *File) error {
				f.SetServer("s-"+itoa(i), &Server{Command: "x"})
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Servers) != 9 {
		t.Errorf("servers = %v, want a and s-0..s-7", f.Names())
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "config.json")
	if err := WriteFile(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("{\"a\": 1}\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(got) != "{\"a\": 1}\n" || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("WriteFile wrote %q with mode %v", got, fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// An entry replaced by one decoded from JSON whose keys came sorted (as an
// API client's encoder writes them) keeps the file's order of keys and
// variables; what is new goes after.
func TestSetServerKeepsOrder(t *testing.T) {
	f, err := Parse([]byte(`{"version": 1, "mcpServers": {"s": {"env": {"Z": "1", "A": "2"}, "command": "x", "args": ["a"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseServer("s", []byte(`{"args": ["b"], "command": "x", "cwd": "/tmp", "env": {"A": "2", "NEW": "3", "Z": "1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.SetServer("s", s)
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `"s": {
      "env": {
        "Z": "1",
        "A": "2",
        "NEW": "3"
      },
      "command": "x",
      "args": [
        "b"
      ],
      "cwd": "/tmp"
    }`
	if !bytes.Contains(out, []byte(want)) {
		t.Fatalf("got:\n%s\nwant the entry:\n%s", out, want)
	}
}

// TestUpdateUnwritable: a config file whose directory cannot be written
// in is not changed, and the error names the file, the directory and the
// remedy, not the lock file beside it that could not be opened: here a
// lock path that is a directory, which fails the same way for everyone
// (a read-only directory: TestUpdateReadOnlyDirectory, Unix).
func TestUpdateUnwritable(t *testing.T) {
	add := func(f *File) error { f.SetServer("x", &Server{Command: "y"}); return nil }
	content := `{"version": 1, "mcpServers": {}}`

	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	writeFile(t, path, content)
	if err := os.Mkdir(path+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	err := Update(path, add)
	want := path + " cannot be changed: writing in its directory " + dir + " failed ("
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "use a config file elsewhere (--config PATH, or SWITCHBOARD_CONFIG)") {
		t.Errorf("a lock that cannot be opened: err = %v, want it to begin %q and name the remedy", err, want)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("the file was changed: %s", got)
	}
}
