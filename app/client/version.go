package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// apiVersion is the version of the host's API that this program speaks
// (tests change it).
var apiVersion = hostapi.APIVersion

// APIVersionError is [Dial]'s error (and the live view's) for a host
// whose API version is incompatible with this program's: another major
// version, or one it cannot read.
type APIVersionError struct {
	Socket string
	PID    int    // the host's, from its greeting
	Host   string // the version the host stated
	Client string // this program's
}

func (e *APIVersionError) Error() string {
	hm, _, hok := parseAPIVersion(e.Host)
	cm, _, _ := parseAPIVersion(e.Client)
	where := fmt.Sprintf("the Switchboard host on %s (pid %d) speaks API %s and this program API %s", e.Socket, e.PID, e.Host, e.Client)
	switch {
	case !hok:
		return where + ", which this program cannot read: restart the host ('switchboard stop', then start it again) so that it runs this version, or update Switchboard"
	case hm < cm:
		return where + ": the host is older, from before an upgrade; restart it ('switchboard stop', then start it again) so that it runs this version"
	default:
		return where + ": this program is older than the host; update Switchboard (or run the same version as the host)"
	}
}

// parseAPIVersion reads "major.minor"; "" (a host that states none) is
// 1.0.
func parseAPIVersion(v string) (major, minor int, ok bool) {
	if v == "" {
		return 1, 0, true
	}
	a, b, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return 0, 0, false
	}
	return major, minor, true
}

// checkAPI refuses a host whose API is of another major version than
// this program's, or unreadable. A host of a lower minor version is
// accepted: it lacks only the methods added since, and a call of one of
// them says so (callHost).
func checkAPI(c *api.Client) error {
	hm, _, hok := parseAPIVersion(c.HostAPI())
	cm, _, _ := parseAPIVersion(apiVersion)
	if hok && hm == cm {
		return nil
	}
	host := c.HostAPI()
	if host == "" {
		host = "1.0"
	}
	return &APIVersionError{Socket: c.Socket(), PID: c.HostPID(), Host: host, Client: apiVersion}
}

// dial connects to the host on socket and checks its API's version.
func dial(ctx context.Context, socket string) (*api.Client, error) {
	c, err := api.Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	if err := checkAPI(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// callHost calls method on c. The host's error answer becomes a
// *hostapi.Error (hostError); an unknown method from a host of an older
// API says which versions meet and what to do, instead of the host's
// list of the methods it knows.
func callHost(ctx context.Context, c *api.Client, method string, params, result any) error {
	err := hostError(c.Call(ctx, method, params, result))
	var he *hostapi.Error
	if !errors.As(err, &he) || he.Code != api.CodeUnknownMethod {
		return err
	}
	host := c.HostAPI()
	_, hmin, _ := parseAPIVersion(host)
	_, cmin, _ := parseAPIVersion(apiVersion)
	if hmin >= cmin {
		return err
	}
	if host == "" {
		host = "1.0 (it states no version)"
	}
	he.Message = fmt.Sprintf("the Switchboard host (pid %d) has no method %s: it speaks API %s and this program API %s; restart the host ('switchboard stop', then start it again) so that it runs this version",
		c.HostPID(), method, host, apiVersion)
	return err
}
