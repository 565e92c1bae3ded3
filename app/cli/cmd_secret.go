package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"golang.org/x/term"
)

func (e *env) secretSet(a *argv) error {
	pos := a.pos
	if len(pos) != 1 {
		return usagef("secret set: give one NAME; the value comes from stdin or a prompt, never from an argument")
	}
	name := pos[0]
	if !config.ValidSecretName(name) {
		return usagef("secret name %q is invalid: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	value, err := e.readSecret(name)
	if err != nil {
		return err
	}
	b, err := e.backend(context.Background())
	if err != nil {
		return err
	}
	defer b.close()
	restarted, err := b.setSecret(name, value)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "secret %s stored in the keyring\n", name)
	if len(restarted) > 0 {
		fmt.Fprintf(e.stdout, "restarted the servers that use it: %s\n", strings.Join(restarted, ", "))
	}
	return nil
}

func (e *env) secretRm(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("secret rm: give one NAME")
	}
	b, err := e.backend(context.Background())
	if err != nil {
		return err
	}
	defer b.close()
	name := a.pos[0]
	// Who uses it, asked before: the list names stored secrets only.
	var users []string
	if list, err := b.listSecrets(); err == nil {
		for _, s := range list {
			if s.Name == name {
				users = s.UsedBy
			}
		}
	}
	if err := b.deleteSecret(name); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "secret %s removed from the keyring\n", name)
	if len(users) > 0 {
		// What runs keeps the value it started with; the next start waits.
		verb := "use"
		if len(users) == 1 {
			verb = "uses"
		}
		fmt.Fprintf(e.stdout, "note: %s %s it: a running server keeps the value it started with, and its next start waits for the secret ('switchboard secret set %s' stores it again)\n",
			english.List(users), verb, name)
	}
	return nil
}

func (e *env) secretList(*argv) error {
	b, err := e.backend(context.Background())
	if err != nil {
		return err
	}
	defer b.close()
	list, err := b.listSecrets()
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no secrets: store one with 'switchboard secret set NAME'")
	}
	for _, s := range list {
		used := "unused"
		if len(s.UsedBy) > 0 {
			used = "used by " + strings.Join(s.UsedBy, ", ")
		}
		fmt.Fprintf(e.stdout, "%s\t%s\n", s.Name, used)
	}
	return nil
}

// readSecret reads a value from a terminal without echo, or from stdin
// (one trailing newline stripped).
func (e *env) readSecret(name string) (string, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.stderr, "value of secret %s (not shown): ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", err
		}
		if len(b) == 0 {
			return "", fmt.Errorf("secret %s: empty value; nothing stored", name)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return "", errNUL(name)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(bufio.NewReader(e.stdin))
	if err != nil {
		return "", err
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", fmt.Errorf("secret %s: empty value on stdin; nothing stored (pipe the value in, e.g. printf %%s \"$TOKEN\" | switchboard secret set %s)", name, name)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return "", errNUL(name)
	}
	return v, nil
}

// errNUL refuses a value with a NUL byte before it reaches the keyring
// (the store refuses it too): no environment variable can carry one.
func errNUL(name string) error {
	return fmt.Errorf("secret %s: the value holds a NUL byte (0x00), which no environment variable can carry; nothing stored: check what is piped in (a binary file, or UTF-16 text)", name)
}
