//go:build windows

package service

import (
	"testing"

	"golang.org/x/sys/windows/registry"
)

// TestRegistryRunKey writes, reads and deletes a value through the real
// registry code, under a key of its own (not the real Run key); the Wine
// run (scripts/wine-test.sh) exercises it on Linux.
func TestRegistryRunKey(t *testing.T) {
	const key = `Software\SwitchboardTest\Run`
	t.Cleanup(func() {
		_ = registry.DeleteKey(registry.CURRENT_USER, key)
		_ = registry.DeleteKey(registry.CURRENT_USER, `Software\SwitchboardTest`)
	})
	a := NewAutostart(windowsEnv, registryRunKey{key: key})
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("before: %v %v", on, err)
	}
	if err := a.Disable(); err != nil { // no key yet: no error
		t.Fatal(err)
	}
	if err := a.Enable(); err != nil {
		t.Fatal(err)
	}
	v, ok, err := registryRunKey{key: key}.Get(RunValue)
	if want, _ := windowsEnv.RunCommand(); !ok || err != nil || v != want {
		t.Fatalf("value %q %v %v, want %q", v, ok, err, want)
	}
	if on, err := a.Enabled(); !on || err != nil {
		t.Fatalf("after on: %v %v", on, err)
	}
	if err := a.Disable(); err != nil {
		t.Fatal(err)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("after off: %v %v", on, err)
	}
	if err := a.Disable(); err != nil { // off twice
		t.Fatal(err)
	}
}
