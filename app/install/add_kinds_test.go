package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

// entries is a Target in memory, without secrets.
type entries map[string]json.RawMessage

func (m entries) Get(name string) (json.RawMessage, error) {
	if e, ok := m[name]; ok {
		return e, nil
	}
	return nil, os.ErrNotExist
}
func (m entries) Create(name string, e json.RawMessage) error { m[name] = e; return nil }
func (m entries) ListSecrets() ([]hostapi.SecretInfo, error)  { return nil, nil }
func (m entries) SetSecret(string, string) error              { return errors.New("no keyring here") }
func (m entries) DeleteSecret(string) error                   { return nil }
func (m entries) entry(t *testing.T, name string) (e struct {
	Command string
	Args    []string
}) {
	t.Helper()
	if err := json.Unmarshal(m[name], &e); err != nil {
		t.Fatalf("%s: %v (%s)", name, err, m[name])
	}
	return e
}

func pkgEntry(name string, p registry.Package) *registry.Entry {
	if p.Transport.Type == "" {
		p.Transport.Type = "stdio"
	}
	return &registry.Entry{Registry: "local", Server: registry.Server{Name: name, Version: p.Version, Packages: []registry.Package{p}}}
}

// only finds the programs named, in the folders given.
func only(progs map[string]string) func(string) (string, error) {
	return func(p string) (string, error) {
		if path, ok := progs[p]; ok {
			return path, nil
		}
		return "", exec.ErrNotFound
	}
}

// TestAddPyPI: a PyPI entry is added installed locked (the config runs
// the venv's python calling the console script, with the package's
// arguments; servers.lock has the install), its server answers
// initialize as the entry runs it, and Verify passes; without python3
// the add is refused naming Python and --unlocked, and adds nothing;
// --unlocked writes uvx NAME==VERSION.
func TestAddPyPI(t *testing.T) {
	ix := fixtureIndex(t)
	py := pythonFor(t, ix)
	en := pkgEntry("io.github.x/sb-fixture-py", registry.Package{RegistryType: "pypi", Identifier: "sb-fixture-py", Version: "1.0.0",
		PackageArguments: []registry.Argument{{Type: "positional", Input: registry.Input{Value: "--flag"}}}})
	state := t.TempDir()
	m := entries{}
	added, err := Add(context.Background(), m, AddRequest{Entry: en, StateDir: state, LookPath: only(map[string]string{"python3": py.Path, "uvx": "/x/uvx"}),
		NPMEnv: py.Env, PyPIIndex: py.Index})
	if err != nil {
		t.Fatal(err)
	}
	e := m.entry(t, "sb-fixture-py")
	dir := PyPIFolder(state, "sb-fixture-py", "1.0.0")
	if e.Command != venvPython(dir) || len(e.Args) != 3 || e.Args[0] != "-c" || e.Args[2] != "--flag" {
		t.Fatalf("the entry: %+v", e)
	}
	lock, _ := ReadLock(state)
	l := lock.Servers["sb-fixture-py"]
	if l == nil || l.Ecosystem != "pypi" || l.Dir != dir || l.Bin != e.Command || !slices.Equal(l.Args, e.Args[:2]) || added.Locked != l && added.Locked.TreeIntegrity != l.TreeIntegrity {
		t.Fatalf("servers.lock: %+v", l)
	}
	if name := initializeArgv(t, append([]string{e.Command}, e.Args...)...); name != "sb-fixture-py" {
		t.Errorf("the entry's argv: serverInfo %q", name)
	}
	if c, err := Verify(l, 10); c != nil || err != nil {
		t.Errorf("Verify: %q %v", c, err)
	}

	m2 := entries{}
	_, err = Add(context.Background(), m2, AddRequest{Entry: en, Local: "other", StateDir: t.TempDir(), LookPath: only(map[string]string{"uvx": "/x/uvx"})})
	if !errors.Is(err, ErrNoPython) || !strings.Contains(err.Error(), "python3-venv") || !strings.Contains(err.Error(), "--unlocked") || !strings.Contains(err.Error(), "uvx sb-fixture-py==1.0.0") || len(m2) != 0 {
		t.Errorf("an add without python3: %v (entries %v)", err, m2)
	}
	_, err = Add(context.Background(), m2, AddRequest{Entry: en, Local: "other", StateDir: t.TempDir(), Unlocked: true, LookPath: only(map[string]string{"uvx": "/x/uvx"})})
	if e := m2.entry(t, "other"); err != nil || e.Command != "uvx" || !slices.Equal(e.Args, []string{"sb-fixture-py==1.0.0", "--flag"}) {
		t.Errorf("--unlocked: %+v %v", e, err)
	}
}

// TestAddOCI: an image the entry gives by digest runs by that digest;
// one given by a tag is resolved to its digest once (docker buildx
// imagetools inspect, here a stand-in docker that answers as it does)
// and runs by it; without docker in the servers' PATH the add is refused
// naming Docker and where to get it, and adds nothing.
func TestAddOCI(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	env := []registry.KeyValue{{Name: "API_KEY", Input: registry.Input{Value: "x"}}}
	byDigest := pkgEntry("io.github.x/img", registry.Package{RegistryType: "oci", Identifier: "ghcr.io/x/img@" + digest, EnvironmentVariables: env,
		PackageArguments: []registry.Argument{{Type: "positional", Input: registry.Input{Value: "serve"}}}})
	m := entries{}
	state := t.TempDir()
	if _, err := Add(context.Background(), m, AddRequest{Entry: byDigest, StateDir: state, LookPath: only(map[string]string{"docker": "/nonexistent/docker"})}); err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "-i", "--rm", "-e", "API_KEY", "ghcr.io/x/img@" + digest, "serve"}
	if e := m.entry(t, "img"); e.Command != "docker" || !slices.Equal(e.Args, want) {
		t.Errorf("by digest: %+v, want docker %q", e, want)
	}
	if lock, _ := ReadLock(state); lock.Servers["img"] == nil || lock.Servers["img"].Image != "ghcr.io/x/img@"+digest || lock.Servers["img"].Ecosystem != "oci" {
		t.Errorf("servers.lock: %+v", lock.Servers["img"])
	}

	if runtime.GOOS != "windows" {
		// A stand-in for docker's CLI: the registry is not reachable here.
		bin := t.TempDir()
		argsFile := filepath.Join(bin, "args")
		script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\necho '{\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"digest\":\"" + digest + "\",\"size\":1609}'\n"
		if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		byTag := pkgEntry("io.github.x/tagged", registry.Package{RegistryType: "oci", Identifier: "localhost:5000/x/tagged", Version: "1.2.0"})
		if _, err := Add(context.Background(), m, AddRequest{Entry: byTag, StateDir: state, LookPath: only(map[string]string{"docker": filepath.Join(bin, "docker")})}); err != nil {
			t.Fatal(err)
		}
		if e := m.entry(t, "tagged"); !slices.Equal(e.Args, []string{"run", "-i", "--rm", "localhost:5000/x/tagged@" + digest}) {
			t.Errorf("by tag: %+v", e)
		}
		if b, _ := os.ReadFile(argsFile); strings.TrimSpace(string(b)) != "buildx imagetools inspect --format {{json .Manifest}} localhost:5000/x/tagged:1.2.0" {
			t.Errorf("docker ran with %q", b)
		}
	}

	m2 := entries{}
	_, err := Add(context.Background(), m2, AddRequest{Entry: byDigest, StateDir: t.TempDir(), LookPath: only(nil)})
	if !errors.Is(err, ErrNoDocker) || !strings.Contains(err.Error(), "needs Docker (install it from https://docs.docker.com/get-docker/)") || len(m2) != 0 {
		t.Errorf("an add without docker: %v (entries %v)", err, m2)
	}
}
