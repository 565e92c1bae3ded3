//go:build unix

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// fakeHost serves host.info alone on d's socket (a real Unix socket)
// with a greeting that states API version v ("" states none).
func fakeHost(t *testing.T, d dirs, v string) {
	t.Helper()
	lock, err := api.AcquireInstanceLock(d.run)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	srv := api.NewServer(api.Methods{
		hostapi.MethodHostInfo.Name: func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
			return hostapi.Info{PID: os.Getpid()}, nil
		},
	}, api.Options{APIVersion: v})
	l, err := lock.Listen(d.socket)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
}

// TestAPIVersion: the client reads the API version in the host's
// greeting. A host of another major version is refused at Dial (and by
// the live view) with an error that names both versions and what to do:
// restart an older host, update an older program. A host of a lower
// minor version is served; a method it lacks fails with both versions
// and "restart the host" instead of the host's list of names. A host
// that states no version (older than the field) is taken as 1.0.
func TestAPIVersion(t *testing.T) {
	ours := hostapi.APIVersion
	for _, tc := range []struct {
		name, host, client string
		want               []string // in the error; none: Dial succeeds
	}{
		{"newer host", "2.0", "1.3", []string{"speaks API 2.0 and this program API 1.3", "this program is older than the host; update Switchboard"}},
		{"older host", "1.7", "2.0", []string{"speaks API 1.7 and this program API 2.0", "restart it ('switchboard stop'"}},
		{"unreadable", "x", ours, []string{`speaks API x and this program API ` + ours, "cannot read: restart the host"}},
		{"no version", "", "1.0", nil},
		{"same major", "1.0", "1.2", nil},
		{"this one", hostapi.APIVersion, ours, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer client.SetAPIVersion(tc.client)()
			d := newDirs(t)
			fakeHost(t, d, tc.host)
			c, err := client.Dial(ctxT(t), d.socket)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				c.Close()
				return
			}
			var ve *client.APIVersionError
			if !errors.As(err, &ve) || ve.Host != tc.host || ve.Client != tc.client {
				t.Fatalf("Dial: %v (%T), want an *APIVersionError of %s and %s", err, err, tc.host, tc.client)
			}
			for _, w := range append(tc.want, d.socket, fmt.Sprintf("pid %d", os.Getpid())) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Dial's error %q does not say %q", err, w)
				}
			}
		})
	}

	// A host of a lower minor version: what it has works, what it lacks
	// says why.
	defer client.SetAPIVersion("1.4")()
	d := newDirs(t)
	fakeHost(t, d, "1.2")
	c, err := client.Dial(ctxT(t), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if info, err := c.Info(ctxT(t)); err != nil || info.PID != os.Getpid() {
		t.Fatalf("Info from the older host: %+v, %v", info, err)
	}
	_, err = c.Servers(ctxT(t))
	var he *hostapi.Error
	if !errors.As(err, &he) || he.Code != api.CodeUnknownMethod {
		t.Fatalf("servers.list from a host without it: %v (%T), want an unknown_method *hostapi.Error", err, err)
	}
	for _, w := range []string{"has no method servers.list", "speaks API 1.2 and this program API 1.4", "restart the host"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error %q does not say %q", err, w)
		}
	}

	// The live view: not connected, and says why. (A subtest: its view
	// stops at its end, before the version is restored.)
	t.Run("live view", func(t *testing.T) {
		t.Cleanup(client.SetAPIVersion("9.0")) // first in, last out: after the view stops
		l := runLive(t, client.Options{Socket: d.socket})
		s := waitSnap(t, l, "the live view refuses the host", func(s client.Snapshot) bool { return s.Err != "" })
		if s.Connected || !strings.Contains(s.Err, "speaks API 1.2 and this program API 9.0") {
			t.Errorf("the live view with a host of another major version: connected %v, error %q", s.Connected, s.Err)
		}
	})
}
