package install_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

// memTarget is install.Target in memory: the config's entries and the
// keyring's secrets, with a Create that can be made to fail.
type memTarget struct {
	entries   map[string]json.RawMessage
	secrets   map[string]string
	usedBy    map[string][]string
	createErr error
}

func (m *memTarget) Get(name string) (json.RawMessage, error) {
	if e, ok := m.entries[name]; ok {
		return e, nil
	}
	return nil, os.ErrNotExist
}

func (m *memTarget) Create(name string, entry json.RawMessage) error {
	if m.createErr != nil {
		return m.createErr
	}
	m.entries[name] = entry
	return nil
}

func (m *memTarget) ListSecrets() ([]hostapi.SecretInfo, error) {
	var out []hostapi.SecretInfo
	for n := range m.secrets {
		out = append(out, hostapi.SecretInfo{Name: n, UsedBy: m.usedBy[n]})
	}
	return out, nil
}

func (m *memTarget) SetSecret(name, value string) error { m.secrets[name] = value; return nil }
func (m *memTarget) DeleteSecret(name string) error     { delete(m.secrets, name); return nil }

func remoteEntry() *registry.Entry {
	return &registry.Entry{Registry: "local", Server: registry.Server{Name: "io.example/weather", Version: "1.2.0",
		Remotes: []registry.Remote{{Type: "streamable-http", URL: "https://example.com/mcp",
			Headers: []registry.KeyValue{
				{Name: "Authorization", Input: registry.Input{Value: "Bearer {token}", Variables: map[string]registry.Input{"token": {IsSecret: true, IsRequired: true}}}},
				{Name: "X-Api-Key", Input: registry.Input{IsSecret: true, IsRequired: true}},
			}}}}}
}

// TestAddRemote: a remote entry is added with its secrets in the
// keyring (never in the entry), and servers.lock records where it came
// from, with no install.
func TestAddRemote(t *testing.T) {
	state := t.TempDir()
	m := &memTarget{entries: map[string]json.RawMessage{}, secrets: map[string]string{}}
	added, err := install.Add(context.Background(), m, install.AddRequest{Entry: remoteEntry(), StateDir: state,
		Values: map[string]string{"token": "tok-123", "X-Api-Key": "key-456"}})
	if err != nil {
		t.Fatal(err)
	}
	raw := string(m.entries["weather"])
	if added.Local != "weather" || raw == "" || strings.Contains(raw, "tok-123") || strings.Contains(raw, "key-456") {
		t.Fatalf("entry %q (added as %q)", raw, added.Local)
	}
	if len(m.secrets) != 2 || !slices.ContainsFunc(added.Secrets, func(s install.AddedSecret) bool { return m.secrets[s.Name] == "key-456" }) {
		t.Fatalf("secrets %v, %+v", m.secrets, added.Secrets)
	}
	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	if l := lock.Servers["weather"]; l == nil || l.Installed() || l.Ecosystem != "remote" || l.Entry != "io.example/weather" || l.EntryVersion != "1.2.0" {
		t.Fatalf("lock entry %+v", l)
	}
}

// TestAddUndoesSecrets: when the config refuses the entry, the secrets
// stored for it are removed again, and a secret of that name that was
// there before (no server used it) is left; nothing reaches the lock.
func TestAddUndoesSecrets(t *testing.T) {
	state := t.TempDir()
	refused := errors.New("the config is locked by a test")
	m := &memTarget{entries: map[string]json.RawMessage{}, secrets: map[string]string{}, createErr: refused}
	// The name the X-Api-Key secret takes, stored before (unused).
	probe := &memTarget{entries: map[string]json.RawMessage{}, secrets: map[string]string{}}
	pa, err := install.Add(context.Background(), probe, install.AddRequest{Entry: remoteEntry(), StateDir: t.TempDir(),
		Values: map[string]string{"token": "t", "X-Api-Key": "k"}})
	if err != nil {
		t.Fatal(err)
	}
	var keyName string
	for _, s := range pa.Secrets {
		if s.Key == "X-Api-Key" {
			keyName = s.Name
		}
	}
	m.secrets[keyName] = "old"

	_, err = install.Add(context.Background(), m, install.AddRequest{Entry: remoteEntry(), StateDir: state,
		Values: map[string]string{"token": "tok-123", "X-Api-Key": "key-456"}})
	if !errors.Is(err, refused) {
		t.Fatalf("err %v", err)
	}
	if len(m.secrets) != 1 || m.secrets[keyName] != "key-456" {
		// The replaced one keeps the new value (it was replaced, and
		// no server used it); the new one is gone.
		t.Fatalf("secrets left %v", m.secrets)
	}
	if lock, _ := install.ReadLock(state); len(lock.Servers) != 0 {
		t.Fatalf("lock %+v", lock.Servers)
	}

	// A secret of that name a server uses is never replaced.
	m = &memTarget{entries: map[string]json.RawMessage{}, secrets: map[string]string{keyName: "theirs"}, usedBy: map[string][]string{keyName: {"other"}}}
	_, err = install.Add(context.Background(), m, install.AddRequest{Entry: remoteEntry(), StateDir: state,
		Values: map[string]string{"token": "tok-123", "X-Api-Key": "key-456"}})
	if err == nil || !strings.Contains(err.Error(), "is used by other") || m.secrets[keyName] != "theirs" || len(m.secrets) != 1 {
		t.Fatalf("err %v, secrets %v", err, m.secrets)
	}
}
