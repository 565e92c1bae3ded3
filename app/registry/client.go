package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is the official registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

const (
	// DefaultTimeout bounds one request: the official registry has been
	// measured at about 20 s a page, so a page gets three times that.
	DefaultTimeout = 60 * time.Second
	// MaxPageBytes bounds the body of one answer (a page of 100 servers
	// is a few hundred KB).
	MaxPageBytes = 16 << 20
	// PageLimit is the number of servers asked for per page (the API's
	// maximum).
	PageLimit = 100
)

// CheckURL says whether a registry's base URL may be used: https, or
// http to a loopback address (a registry on this machine, as in tests);
// no user info, query or fragment. The error names the remedy.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: write it like %s", raw, DefaultURL)
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
	case u.Scheme == "http" && u.Host != "" && isLoopback(u.Hostname()):
	case u.Scheme == "http":
		return fmt.Errorf("%q is plain http: a registry's answers say what to run, so it must be https (http only to this machine: localhost, 127.0.0.1, ::1)", raw)
	default:
		return fmt.Errorf("%q is not an https URL: write it like %s", raw, DefaultURL)
	}
	if u.User != nil {
		return fmt.Errorf("%q holds a user name or password: a registry is read without credentials", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or a fragment: give the registry's base URL only, like %s", raw, DefaultURL)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client reads one registry's v0.1 API.
type Client struct {
	Base string       // the base URL (checked by CheckURL)
	HTTP *http.Client // nil: one with DefaultTimeout that refuses a redirect CheckURL refuses
}

// NewClient returns a client of the registry at base, or CheckURL's error.
func NewClient(base string) (*Client, error) {
	if err := CheckURL(base); err != nil {
		return nil, err
	}
	return &Client{Base: strings.TrimRight(base, "/")}, nil
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: DefaultTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		return CheckURL(req.URL.Scheme + "://" + req.URL.Host)
	}}
}

// ListOptions are the parameters of a list call.
type ListOptions struct {
	Cursor       string
	UpdatedSince time.Time // zero: every server
	Search       string    // case-insensitive substring of the name (and, newer, the description)
	Limit        int       // 0: PageLimit
	AllVersions  bool      // false: version=latest
}

// List reads one page of servers.
func (c *Client) List(ctx context.Context, o ListOptions) (*ServerList, error) {
	q := url.Values{}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if !o.UpdatedSince.IsZero() {
		q.Set("updated_since", o.UpdatedSince.UTC().Format(time.RFC3339))
	}
	if o.Search != "" {
		q.Set("search", o.Search)
	}
	limit := o.Limit
	if limit <= 0 {
		limit = PageLimit
	}
	q.Set("limit", fmt.Sprint(limit))
	if !o.AllVersions {
		q.Set("version", "latest")
	}
	var out ServerList
	if err := c.get(ctx, "/v0.1/servers?"+q.Encode(), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get reads one version of a server ("latest" for the latest).
func (c *Client) Get(ctx context.Context, name, version string) (*ServerResponse, error) {
	if version == "" {
		version = "latest"
	}
	var out ServerResponse
	p := "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	if err := c.get(ctx, p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// get reads a JSON answer of at most MaxPageBytes.
func (c *Client) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "switchboard (+https://github.com/switchboard-mcp/switchboard)")
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("registry %s: %w (check the network, or try again later: the registry may be slow or down)", c.Base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPageBytes+1))
	if err != nil {
		return fmt.Errorf("registry %s: reading %s: %w", c.Base, path, err)
	}
	if len(body) > MaxPageBytes {
		return fmt.Errorf("registry %s: the answer to %s is over %d MB: not read (is this a registry?)", c.Base, path, MaxPageBytes>>20)
	}
	if resp.StatusCode != http.StatusOK {
		return &StatusError{URL: c.Base + path, Code: resp.StatusCode, Body: snippet(body)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("registry %s: the answer to %s is not the v0.1 API's JSON: %v (is the URL a registry's base URL?)", c.Base, path, err)
	}
	return nil
}

// StatusError is an answer other than 200.
type StatusError struct {
	URL  string
	Code int
	Body string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("registry answered %d %s for %s", e.Code, http.StatusText(e.Code), e.URL)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// snippet is the start of a body, on one line, for an error.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
