package host

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Redirects (issue 25, docs/remote.md "Redirects"). A remote server's
// credentials (its entry's headers, which may hold keyring secrets, and
// its OAuth access token) are for its own origin only: a redirect to
// another scheme, host or port gets none of them, and a redirect from
// https to http is refused. net/http alone does not do this: it copies
// every header of the first request to the redirected one (only
// Authorization and Cookie are dropped, and only for another host name:
// another port on the same host gets them), and the remote round tripper
// adds the headers inside RoundTrip, where the client's own stripping
// never sees them. So the round tripper adds them only to requests for
// the entry's origin, and every client the host uses for a remote server
// (the MCP connection, the sign-in, the token renewal, the revocation)
// has a CheckRedirect from redirectPolicy.

// origin is a URL's origin as a browser compares them: scheme, host and
// port, the default port made explicit and case folded; "" when u is nil.
func origin(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// originOf is origin of a URL in text ("" if it does not parse).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return origin(u)
}

// downgradeError is a redirect from https to http, refused.
type downgradeError struct {
	server   string
	from, to string // origins
}

func (e *downgradeError) Error() string {
	return fmt.Sprintf("server %q: a redirect from %s to %s was refused: it would send the request, and what it carries, unencrypted: "+
		"fix the server's URL in the config (its \"url\") to the address the server means, over https", e.server, e.from, e.to)
}

// crossOriginBodyError is a redirect that would re-send an OAuth request's
// body (a code, a refresh token, a client secret) to another origin.
type crossOriginBodyError struct {
	server   string
	from, to string
}

func (e *crossOriginBodyError) Error() string {
	return fmt.Sprintf("server %q: a redirect from %s to %s was refused: it would send the sign-in's request (which carries a code, a token or the client's secret) to another origin: "+
		"the authorization server's metadata must name its endpoints where they answer", e.server, e.from, e.to)
}

// sensitiveHeaders are dropped from a request redirected to another
// origin, whatever client made it.
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "Referer"}

// redirectPolicy is the CheckRedirect of an HTTP client the host uses for
// remote server name. A redirect from https to http is refused (an error
// naming the server, both origins and the remedy; watch, if set, records
// it for the server's status). A redirect to another origin than the
// first request's loses the credentials: the headers named in strip (the
// entry's), Authorization, cookies and the Referer (the entry's address
// may carry a key in its query); with noBody (the OAuth clients, whose
// requests carry codes, tokens and client secrets in their bodies) one
// that would re-send a body is refused.
func redirectPolicy(name string, watch *remoteWatch, strip []string, noBody bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("server %q: stopped after 10 redirects: fix the server's URL in the config", name)
		}
		first, prev := via[0].URL, via[len(via)-1].URL
		if strings.EqualFold(req.URL.Scheme, "http") && (strings.EqualFold(prev.Scheme, "https") || strings.EqualFold(first.Scheme, "https")) {
			from := origin(prev)
			if !strings.EqualFold(prev.Scheme, "https") {
				from = origin(first)
			}
			err := &downgradeError{server: name, from: from, to: origin(req.URL)}
			if watch != nil {
				watch.set(hostapi.StateUnreachable, err.Error())
			}
			return err
		}
		if origin(req.URL) == origin(first) {
			return nil
		}
		if noBody && req.Body != nil && req.Body != http.NoBody {
			return &crossOriginBodyError{server: name, from: origin(first), to: origin(req.URL)}
		}
		for _, h := range sensitiveHeaders {
			req.Header.Del(h)
		}
		for _, h := range strip {
			req.Header.Del(h)
		}
		return nil
	}
}
