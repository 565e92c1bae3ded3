package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServersOfWrongTypeRefused: an mcpServers that is not an object is
// an error of the whole file (Load fails, Update writes nothing), not an
// empty list that would stop every server.
func TestServersOfWrongTypeRefused(t *testing.T) {
	for doc, want := range map[string]string{
		`{"mcpServers": null}`:                             `mcpServers: is null, not an object of servers: write "mcpServers": {} for no servers`,
		`{"mcpServers": "x"}`:                              `mcpServers: is a string "x", not an object of servers by name`,
		`{"mcpServers": []}`:                               `mcpServers: is a list, not an object of servers by name`,
		`{"mcpServers": 3}`:                                `mcpServers: is a number 3, not an object`,
		`{"mcpServers": false}`:                            `mcpServers: is a boolean, not an object`,
		`{"version": 1, "mcpServers": [{"command": "x"}]}`: `mcpServers: is a list`,
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s): %v, want %q", doc, err, want)
		}
		path := filepath.Join(t.TempDir(), "config.json")
		writeFile(t, path, doc)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v", doc, err)
		}
		err := Update(path, func(f *File) error {
			f.SetServer("added", &Server{Command: "node"})
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "is not changed until it can be read") {
			t.Errorf("Update on %s: %v", doc, err)
		}
		if b, _ := os.ReadFile(path); string(b) != doc {
			t.Errorf("Update on %s wrote %s", doc, b)
		}
	}
	if f, err := Parse([]byte(`{"mcpServers": {}}`)); err != nil || len(f.Servers) != 0 || f.Report().Len() != 0 {
		t.Errorf("an empty object: %v", err)
	}
}

// TestGatewayProblems: the "gateway" key is checked like every other:
// a problem in the Report naming the key and the remedy.
func TestGatewayProblems(t *testing.T) {
	for doc, want := range map[string]string{
		`{"gateway": {"httpPort": 99999}}`:    `gateway.httpPort: 99999 is not a port: write a number from 1 to 65535, or 0 to turn the HTTP endpoint off`,
		`{"gateway": {"httpPort": "80"}}`:     `gateway.httpPort: "80" is not a port: write a number from 1 to 65535`,
		`{"gateway": {"httpPort": -1}}`:       `gateway.httpPort: -1 is not a port`,
		`{"gateway": {"httpPort": 80.5}}`:     `gateway.httpPort: 80.5 is not a port`,
		`{"gateway": 8765}`:                   `gateway: is not an object: write {"httpPort": 8765}, or remove it`,
		`{"gateway": {"httpport": 8765}}`:     `gateway.httpport: is not a known key: the gateway's only setting is "httpPort"`,
		`{"gateway": {"httpPort": 8765}}`:     ``,
		`{"gateway": {"httpPort": 0}}`:        ``,
		`{"gateway": null, "mcpServers": {}}`: ``,
	} {
		f, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", doc, err)
		}
		got := f.Report().Error()
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: report %q, want %q", doc, got, want)
		}
	}
}

// TestReadSizeLimit: a file over MaxFileSize is refused before it is
// read, with its size and the limit.
func TestReadSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	big := append([]byte(`{"mcpServers": {}, "pad": "`), bytes.Repeat([]byte("x"), MaxFileSize)...)
	big = append(big, `"}`...)
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "over the limit of 4 MiB") {
		t.Errorf("Load of %d bytes: %v", len(big), err)
	}
	if err := Update(path, func(*File) error { return nil }); !errors.As(err, &fe) {
		t.Errorf("Update of %d bytes: %v", len(big), err)
	}
	// Just under the limit is read.
	ok := append([]byte(`{"mcpServers": {}, "pad": "`), bytes.Repeat([]byte("x"), MaxFileSize-64)...)
	ok = append(ok, `"}`...)
	if err := os.WriteFile(path, ok, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("Load of %d bytes: %v", len(ok), err)
	}
}
