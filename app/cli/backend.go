package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// backend is where the commands that change servers and secrets act: the
// running host (which writes the file itself), or with no host the file
// (under its lock) and the keyring directly.
type backend interface {
	put(name string, entry json.RawMessage, create bool) error
	get(name string) (json.RawMessage, error)
	remove(name string) error
	rename(name, newName string) error
	setDisabled(name string, disabled bool) error
	setSecret(name, value string) (restarted []string, err error)
	deleteSecret(name string) error
	listSecrets() ([]hostapi.SecretInfo, error)
	close()
}

func (e *env) backend(ctx context.Context) (backend, error) {
	c, err := e.dial(ctx)
	if err != nil {
		return nil, err
	}
	if c != nil {
		return &hostBackend{ctx: ctx, c: c}, nil
	}
	path, _, err := e.configPath()
	if err != nil {
		return nil, err
	}
	return &fileBackend{path: path, store: e.store(), state: config.StateDir(e.getenv)}, nil
}

type hostBackend struct {
	ctx context.Context
	c   *client.Conn
}

func (b *hostBackend) close() { b.c.Close() }

func (b *hostBackend) put(name string, entry json.RawMessage, create bool) error {
	return b.c.PutServer(b.ctx, name, entry, create)
}

func (b *hostBackend) get(name string) (json.RawMessage, error) { return b.c.GetServer(b.ctx, name) }

func (b *hostBackend) remove(name string) error { return b.c.RemoveServer(b.ctx, name) }

func (b *hostBackend) rename(name, newName string) error {
	return b.c.RenameServer(b.ctx, name, newName)
}

func (b *hostBackend) setDisabled(name string, disabled bool) error {
	return b.c.SetDisabled(b.ctx, name, disabled)
}

func (b *hostBackend) setSecret(name, value string) ([]string, error) {
	return b.c.SetSecret(b.ctx, name, value)
}

func (b *hostBackend) deleteSecret(name string) error { return b.c.DeleteSecret(b.ctx, name) }

func (b *hostBackend) listSecrets() ([]hostapi.SecretInfo, error) { return b.c.Secrets(b.ctx) }

type fileBackend struct {
	path  string
	store *secrets.Store
	state string // servers.lock's folder: a remove or rename keeps it in step, as the host does
}

func (b *fileBackend) close() {}

func (b *fileBackend) update(fn func(*config.File) error) error {
	if _, err := os.Stat(b.path); errors.Is(err, os.ErrNotExist) {
		// The first change creates the file.
		if err := config.WriteFile(b.path, []byte("{\n  \"version\": 1,\n  \"mcpServers\": {}\n}\n")); err != nil {
			return fmt.Errorf("creating the config %s: %w", b.path, err)
		}
	}
	return config.Update(b.path, fn)
}

func (b *fileBackend) put(name string, entry json.RawMessage, create bool) error {
	return b.update(func(f *config.File) error { return configedit.PutServer(f, name, entry, create) })
}

func (b *fileBackend) get(name string) (json.RawMessage, error) {
	f, err := config.Load(b.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if f == nil {
		return nil, configedit.NotInConfig(name, nil)
	}
	if f.Servers[name] == nil {
		return nil, configedit.NotInConfig(name, f.Names())
	}
	return json.Marshal(f.Servers[name])
}

func (b *fileBackend) remove(name string) error {
	if err := b.update(func(f *config.File) error { return configedit.RemoveServer(f, name) }); err != nil {
		return err
	}
	if b.state == "" {
		return nil
	}
	if _, err := install.Forget(b.state, name); err != nil {
		return fmt.Errorf("%s was removed from the config, but its entry in %s was not: %w", name, install.LockPath(b.state), err)
	}
	return nil
}

func (b *fileBackend) rename(name, newName string) error {
	if err := b.update(func(f *config.File) error { return configedit.Rename(f, name, newName) }); err != nil {
		return err
	}
	if b.state == "" {
		return nil
	}
	if err := install.Rename(b.state, name, newName); err != nil {
		return fmt.Errorf("%s was renamed %s in the config, but not in %s: %w", name, newName, install.LockPath(b.state), err)
	}
	return nil
}

func (b *fileBackend) setDisabled(name string, disabled bool) error {
	return b.update(func(f *config.File) error { return configedit.SetDisabled(f, name, disabled) })
}

func (b *fileBackend) setSecret(name, value string) ([]string, error) {
	return nil, b.store.Set(name, secrets.New(value))
}

func (b *fileBackend) deleteSecret(name string) error { return b.store.Delete(name) }

func (b *fileBackend) listSecrets() ([]hostapi.SecretInfo, error) {
	f, err := config.Load(b.path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = config.New(), nil
	}
	if err != nil {
		return nil, err
	}
	return configedit.ListSecrets(b.store, f)
}
