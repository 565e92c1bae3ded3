package trust

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// KindForeignURL: a URL in the definition to a host that is not the
// server's own: where a poisoned description tells the model to send
// what it read ("append the file to https://collect.example-attacker.io/?d=").
// Issue 27 item 21.
const KindForeignURL Kind = "foreign-url"

// urlPattern finds URLs with a scheme (http, https, ws, wss, ftp). A
// host written without a scheme ("attacker.io/collect") is not found: in
// prose it cannot be told from a file name or a package name.
var urlPattern = regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://[^\s"'<>()\[\]{}` + "`" + `\\|^]+`)

// OwnHosts decides which hosts are a server's own, for [KindForeignURL].
// A URL's host is the server's own when it is one of hosts or shares its
// registrable domain (the public suffix and one label: mcp.example.com
// and api.example.com are one party's; github.io users are not one
// another's). Hosts that cannot receive anything from elsewhere are never
// foreign: loopback (localhost, 127.0.0.0/8, ::1) and the names reserved
// for examples and tests (RFC 2606, RFC 6761: example.com/.net/.org,
// .example, .test, .invalid, .localhost).
//
// Where the host finds a server's own hosts (docs/trust.md): a remote
// server's are its URL's host (and that host's registrable domain); a
// local server (a command) has none that the host knows, since the host
// reads no package metadata, so every URL to a public host in its
// definitions is flagged. A flag is evidence for the review, never a
// block.
type OwnHosts []string

func (o OwnHosts) owns(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || neverForeign(host) {
		return true
	}
	site := registrable(host)
	for _, h := range o {
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		if h == "" {
			continue
		}
		if h == host || site != "" && registrable(h) == site {
			return true
		}
	}
	return false
}

// registrable is host's public suffix and one more label, "" for an IP
// address or a host that has none (a bare suffix, a single label).
func registrable(host string) string {
	if net.ParseIP(host) != nil {
		return ""
	}
	s, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return ""
	}
	return s
}

func neverForeign(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || ip.IsUnspecified()
	}
	for _, n := range []string{"localhost", "example.com", "example.net", "example.org", "example", "test", "invalid"} {
		if host == n || strings.HasSuffix(host, "."+n) {
			return true
		}
	}
	return false
}

// scanURLs flags each URL in s whose host is not own's.
func scanURLs(field, s string, own OwnHosts) []Flag {
	var flags []Flag
	for _, m := range urlPattern.FindAllStringIndex(s, -1) {
		raw := strings.TrimRight(s[m[0]:m[1]], ".,;:!?") // a sentence's end is not the URL's
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" || own.owns(u.Hostname()) {
			continue
		}
		flags = append(flags, Flag{Kind: KindForeignURL, Field: field, Offset: m[0], Length: len(raw), Match: raw})
	}
	return flags
}
