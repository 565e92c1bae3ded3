//go:build unix

package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestContract holds the three ends of the host's API to one list, the
// descriptors of app/hostapi (hostapi.Methods()):
//
//   - the host's table (handlers.go) has a handler for every method, and
//     none for another name: a name it lacks is unknown_method;
//   - app/client has a typed method for every one: each method of
//     client.Methods, called through a real connection to a server that
//     records what it is asked, calls one of the API's methods, and every
//     method of the API is called by one of them.
//
// A descriptor added without a handler or a client method fails here.
func TestContract(t *testing.T) {
	var want []string
	for _, d := range hostapi.Methods() {
		want = append(want, d.MethodName())
	}
	sort.Strings(want)

	// The host's table: the same names, no more.
	ms := (&Host{}).handlers()
	var have []string
	for name := range ms {
		have = append(have, name)
	}
	sort.Strings(have)
	for _, name := range want {
		if _, ok := ms[name]; !ok {
			t.Errorf("the host has no handler for %s: add it to the table in handlers.go", name)
		}
	}
	for _, name := range have {
		if !slices.Contains(want, name) {
			t.Errorf("the host's table answers %s, which is no method of hostapi.Methods()", name)
		}
	}
	_, err := ms.Handle(context.Background(), &api.ConnInfo{}, "servers.nope", nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeUnknownMethod {
		t.Errorf("the table's answer to an unknown method: %v, want an %s error", err, api.CodeUnknownMethod)
	}

	// The client: every typed method, through a real socket, to a server
	// that records the names it is asked and answers null.
	dir, err := os.MkdirTemp("", "sbc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	var mu sync.Mutex
	called := map[string]bool{}
	srv := api.NewServer(api.HandlerFunc(func(ctx context.Context, _ *api.ConnInfo, method string, params json.RawMessage) (any, error) {
		mu.Lock()
		called[method] = true
		mu.Unlock()
		if _, ok := ms[method]; !ok {
			return ms.Handle(ctx, nil, method, params) // unknown_method
		}
		return nil, nil
	}), api.Options{APIVersion: hostapi.APIVersion})
	socket := filepath.Join(dir, api.SocketName)
	l, err := lock.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	uncalled := slices.Clone(want)
	mt := reflect.TypeFor[client.Methods]()
	mv := reflect.ValueOf(conn.Methods)
	ctxType := reflect.TypeFor[context.Context]()
	for i := range mt.NumMethod() {
		m := mt.Method(i)
		ft := m.Type // with the receiver first
		if ft.NumIn() < 2 || ft.In(1) != ctxType {
			t.Errorf("client.Methods.%s does not take a context first: every method of Methods calls the host", m.Name)
			continue
		}
		mu.Lock()
		clear(called)
		mu.Unlock()
		args := []reflect.Value{reflect.ValueOf(ctx)}
		for j := 2; j < ft.NumIn(); j++ {
			args = append(args, reflect.Zero(ft.In(j)))
		}
		mv.MethodByName(m.Name).Call(args)
		mu.Lock()
		var names []string
		for n := range called {
			names = append(names, n)
		}
		mu.Unlock()
		if len(names) != 1 {
			t.Errorf("client.Methods.%s called %v, want one method of the API", m.Name, names)
			continue
		}
		if !slices.Contains(want, names[0]) {
			t.Errorf("client.Methods.%s calls %s, which is no method of hostapi.Methods()", m.Name, names[0])
		}
		uncalled = slices.DeleteFunc(uncalled, func(s string) bool { return s == names[0] })
	}
	// SetDisabled(false) is servers.enable; with true, servers.disable.
	if err := conn.SetDisabled(ctx, "x", true); err != nil {
		t.Fatal(err)
	}
	uncalled = slices.DeleteFunc(uncalled, func(s string) bool { return s == hostapi.MethodServersDisable.Name })
	for _, name := range uncalled {
		t.Errorf("app/client has no method that calls %s: add one to client.Methods", name)
	}
}
