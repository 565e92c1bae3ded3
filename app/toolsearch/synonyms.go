package toolsearch

import (
	"strings"
	"unicode"
)

// synonymGroups are words people use for the same thing when they ask for
// a tool, written from how requests are phrased in general (not from the
// corpus' test half). Within a group every word brings the others into a
// query, at Params.SynonymWeight. Multi-word entries ("pull request")
// bring each of their words.
var synonymGroups = [][]string{
	{"folder", "directory", "dir"},
	{"delete", "remove", "erase", "forget", "destroy", "cleanup", "clean up", "wipe"},
	{"write", "save", "store", "overwrite"},
	{"list", "show", "ls", "enumerate"},
	{"code", "function", "class", "symbol", "source"},
	{"create", "make", "new"},
	{"pr", "pull request"},
	{"mr", "merge request"},
	{"repo", "repository", "project"},
	{"issue", "bug", "ticket"},
	{"screenshot", "picture", "capture", "snap"},
	{"search", "find", "look up", "google", "lookup"},
	{"web", "internet", "online"},
	{"news", "headlines"},
	{"user", "member", "people", "person", "account"},
	{"message", "post", "chat"},
	{"approve", "review"},
	{"comment", "remark", "feedback"},
	{"run", "execute", "exec"},
	{"website", "site", "webpage"},
	{"url", "link"},
	{"navigate", "open", "visit", "go"},
	{"type", "enter", "fill", "input"},
	{"click", "tap", "press"},
	{"k8s", "kubernetes", "kubectl", "cluster"},
	{"database", "db", "sql", "table"},
	{"remember", "memorize", "knowledge", "memory", "entity", "observation", "fact"},
	{"sum", "add", "plus", "total"},
	{"elevation", "altitude", "height", "sea level"},
	{"coordinates", "latitude", "longitude", "geocode", "lat", "lng"},
	{"directions", "route", "drive", "walk", "driving", "walking"},
	{"distance", "far", "travel time", "duration"},
	{"restaurant", "place", "shop", "cafe", "business"},
	{"documentation", "docs", "doc", "manual", "reference"},
	{"library", "package", "framework", "sdk"},
	{"scrape", "extract", "fetch", "content", "text"},
	{"crawl", "spider"},
	{"deployment", "deploy", "rollout", "release"},
	{"rollback", "undo", "revert"},
	{"think", "thinking", "reason", "reasoning", "step by step", "thought"},
	{"markdown", "md"},
	{"pdf", "document", "docx"},
	{"paper", "article", "academic", "arxiv", "doi", "citation", "cite"},
	{"commit", "push"},
	{"readme", "file contents"},
	{"image", "photo", "png", "jpg", "picture"},
	{"log", "logs", "logging", "console"},
	{"rename", "move"},
	{"size", "big", "large", "space"},
	{"modified", "changed", "metadata", "info"},
	{"tab", "window"},
	{"dropdown", "select", "option", "choose", "pick"},
	{"hover", "mouse over", "mouseover"},
	{"wait", "until", "appear"},
	{"emoji", "reaction", "react"},
	{"thread", "replies", "reply"},
	{"profile", "timezone", "title"},
	{"monitor", "watch", "alert", "track", "notify"},
	{"credit", "balance", "quota", "usage"},
	{"cordon", "drain", "node", "maintenance"},
	{"namespace", "ns"},
	{"chart", "helm"},

	// General software and API vocabulary (the second table, 2026-12-02):
	// words of everyday requests to an AI app and the words tools'
	// descriptions use for the same things, checked on the tuning sets
	// only. Its author also wrote the held-out set a little earlier: words
	// remembered from the held-out requests were left out on purpose
	// (docs/toolsearch.md, "Honesty").
	{"get", "fetch", "retrieve", "obtain", "download"},
	{"read", "view", "display", "print", "cat", "contents"},
	{"update", "edit", "modify", "change", "alter", "patch", "tweak", "set"},
	{"replace", "substitute", "swap", "rewrite", "fix"},
	{"add", "append", "insert", "attach", "include"},
	{"start", "launch", "begin", "kick off", "set up", "initiate"},
	{"stop", "halt", "end", "terminate", "kill", "cancel"},
	{"close", "quit", "exit", "shut"},
	{"clone", "duplicate", "fork"},
	{"merge", "land", "combine"},
	{"upload", "attach", "send file"},
	{"status", "state", "progress", "done", "finished", "complete", "ready"},
	{"detail", "details", "describe", "inspect", "information", "info"},
	{"explain", "meaning", "definition", "mean"},
	{"javascript", "js", "script", "expression"},
	{"evaluate", "eval", "execute"},
	{"keyboard", "key", "keystroke", "hotkey", "shortcut"},
	{"dialog", "popup", "pop up", "modal", "confirm", "prompt"},
	{"form", "field", "fields", "textbox", "input box"},
	{"button", "link", "checkbox", "element"},
	{"back", "previous", "history"},
	{"browser", "chrome", "tab"},
	{"resize", "window size", "dimensions", "width", "height"},
	{"network", "request", "requests", "xhr", "traffic"},
	{"page", "webpage", "web page", "site"},
	{"snapshot", "accessibility", "dom", "aria"},
	{"map", "urls", "discover"},
	{"research", "investigate", "study", "in depth", "deep dive"},
	{"report", "create"}, // "report a bug"
	{"related", "similar", "cite", "citing", "references"},
	{"paper", "papers", "publication", "journal", "scholarly"},
	{"example", "examples", "snippet", "sample", "how to", "tutorial", "guide"},
	{"id", "identifier"},
	{"parse", "convert", "transform"},
	{"file", "document"},
	{"find", "where is", "seek"},
	{"metadata", "modified", "timestamp", "permissions", "last changed"},
	{"recursive", "nested", "tree", "hierarchy"},
	{"allowed", "permitted", "permission"},
	{"branch", "feature branch"},
	{"commit", "commits", "history", "changes"},
	{"diff", "changed files", "changes"},
	{"check", "checks", "ci", "build"},
	{"label", "labels", "tag", "tags", "annotate"},
	{"close", "reopen", "state"},
	{"owner", "org", "organization", "account", "namespace"},
	{"team", "workspace", "company", "org"},
	{"send", "post", "announce", "say", "notify", "share"},
	{"reply", "respond", "follow up"},
	{"channel", "room", "conversation"},
	{"history", "recent", "latest", "earlier"},
	{"react", "reaction", "emoji", "thumbs up", "like"},
	{"profile", "bio", "contact"},
	{"pod", "container", "pods", "containers"},
	{"log", "logs", "output", "stdout"},
	{"scale", "replica", "replicas", "instances"},
	{"context", "kubeconfig", "switch cluster", "current cluster"},
	{"port forward", "forward", "tunnel"},
	{"shell", "command", "terminal", "exec", "cli"},
	{"manifest", "yaml", "spec", "config", "configuration"},
	{"uninstall", "remove"},
	{"upgrade", "update"},
	{"ping", "alive", "healthy", "reachable"},
	{"resource", "resources", "object", "kind", "kinds", "type", "types"},
	{"node", "nodes", "worker", "machine"},
	{"query", "sql", "select", "rows", "records"},
	{"entity", "entities", "person", "concept"},
	{"relation", "relations", "relationship", "link", "manager", "works at"},
	{"observation", "observations", "fact", "facts", "note", "attribute"},
	{"remember", "recall", "memorize", "memory"},
	{"address", "street", "location"},
	{"coordinates", "lat", "long", "position"},
	{"near", "local", "near me"},
	{"place", "restaurant", "store", "shop", "pharmacy", "cafe", "coffee"},
	{"details", "opening hours", "hours", "phone", "rating", "website"},
	{"block", "paragraph", "bullet", "heading", "content"},
	{"children", "nested"},
	{"property", "properties", "field", "title", "tag"},
	{"data source", "database", "table", "collection", "spreadsheet"},
	{"template", "templates", "blueprint"},
	{"page", "doc", "note", "notes"},
	{"move", "parent", "reparent"},
	{"echo", "say back", "parrot"},
	{"environment", "env", "environment variables", "variables"},
	{"gzip", "compress", "zip", "archive", "compression"},
	{"progress", "long running", "operation", "long task"},
	{"toggle", "turn on", "turn off", "enable", "disable", "switch on", "switch off"},
	{"subscription", "subscribe", "subscriber", "updates"},
	{"roots", "root", "workspace folders"},
	{"tiny", "small", "little", "sample image", "test image"},
	{"thought", "thoughts", "reflect", "revise", "problem solving"},
	{"schedule", "recurring", "interval", "cron"},
	{"feedback", "rate", "rating", "quality"},
	{"crawl", "follow links", "whole site"},
}

// synonyms maps a query term, or a phrase of terms joined by spaces
// (stemmed), to related index terms (stemmed).
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		var all [][]string
		for _, w := range g {
			all = append(all, terms(w))
		}
		for i, from := range all {
			if len(from) == 0 {
				continue
			}
			key := strings.Join(from, " ")
			for j, to := range all {
				if i != j {
					m[key] = append(m[key], to...)
				}
			}
		}
	}
	return m
}()

// maxPhrase is the longest phrase (in terms) of synonymGroups.
const maxPhrase = 3

// queryHints are terms a query implies by its shape: a URL or a domain
// ("docs.stripe.com") means "url", a file name ("notes.txt") means
// "file", a channel ("#general") means "channel", an owner/name pair
// ("facebook/react") means "repository".
func queryHints(query string) []string {
	var out []string
	for _, f := range strings.Fields(query) {
		f = strings.Trim(f, `"'(),;:!?`)
		switch {
		case strings.Contains(f, "://"):
			out = append(out, "url")
		case strings.HasPrefix(f, "#") && len(f) > 1:
			out = append(out, "channel")
		case isOwnerName(f):
			out = append(out, stem("repository"))
		default:
			if i := strings.LastIndexByte(f, '.'); i > 0 && len(f)-i-1 >= 2 && len(f)-i-1 <= 4 && isASCIILetters(strings.ToLower(f[i+1:])) {
				if tld[strings.ToLower(f[i+1:])] && !strings.Contains(f, "/") {
					out = append(out, "url")
				} else {
					out = append(out, "file")
				}
			}
		}
	}
	return out
}

// withoutExtensions is the query less the extensions of its file names
// and domains, and the scheme of its URLs ("main.go": "main"; "acme.com":
// "acme"; "https://x.org/a": "x a"): a file's ".go" is not "go", a
// site's ".org" is not an organisation. queryHints says "file" or "url"
// for them instead.
func withoutExtensions(query string) string {
	f := strings.Fields(query)
	for i, w := range f {
		t := strings.Trim(w, `"'(),;:!?`)
		if _, rest, ok := strings.Cut(t, "://"); ok {
			host, path, _ := strings.Cut(rest, "/")
			if j := strings.LastIndexByte(host, '.'); j > 0 {
				host = host[:j]
			}
			f[i] = host + " " + path
			continue
		}
		if j := strings.LastIndexByte(t, '.'); j > 0 && len(t)-j-1 >= 2 && len(t)-j-1 <= 4 && isASCIILetters(strings.ToLower(t[j+1:])) && !isOwnerName(t) {
			f[i] = t[:j]
		}
	}
	return strings.Join(f, " ")
}

// tld are the top-level domains common enough that "name.TLD" is a site
// rather than a file ("example.com", not "notes.txt").
var tld = map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true,
	"co": true, "ai": true, "edu": true, "gov": true, "uk": true, "de": true, "fr": true, "info": true}

// isOwnerName says whether f looks like a repository's OWNER/NAME: two
// parts of letters, digits, '-', '_' or '.', starting with a letter or
// digit, at least two characters each, a letter in the owner, and no
// file extension.
func isOwnerName(f string) bool {
	owner, name, ok := strings.Cut(f, "/")
	if !ok || strings.Contains(name, "/") || len(owner) < 2 || len(name) < 2 {
		return false
	}
	for _, p := range []string{owner, name} {
		if !isNameChar(rune(p[0])) || p[0] == '-' || p[0] == '_' || p[0] == '.' {
			return false
		}
		for _, r := range p {
			if !isNameChar(r) {
				return false
			}
		}
	}
	if !strings.ContainsFunc(owner, unicode.IsLetter) {
		return false // a date or a fraction: 10/12
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 && !strings.ContainsAny(name[i+1:], "0123456789") {
		return false // a path to a file: src/main.go
	}
	return true
}

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
}
