//go:build linux

package cli

import (
	"path/filepath"
	"testing"
)

func TestPinsPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, filepath.Join("/s", "switchboard", "pins.json")},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}, filepath.Join("/h", ".local", "state", "switchboard", "pins.json")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".local", "state", "switchboard", "pins.json")},
		{map[string]string{}, ""},
	} {
		if got := pinsPath(env(c.env)); got != c.want {
			t.Errorf("pinsPath(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}
