package toolsearch

import "strings"

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

// queryHints are terms a query implies by its shape: a URL means "url", a
// file name ("notes.txt") means "file", a channel ("#general") means
// "channel".
func queryHints(query string) []string {
	var out []string
	for _, f := range strings.Fields(query) {
		f = strings.Trim(f, `"'(),;:!?`)
		switch {
		case strings.Contains(f, "://"):
			out = append(out, "url")
		case strings.HasPrefix(f, "#") && len(f) > 1:
			out = append(out, "channel")
		default:
			if i := strings.LastIndexByte(f, '.'); i > 0 && len(f)-i-1 >= 2 && len(f)-i-1 <= 4 && isASCIILetters(strings.ToLower(f[i+1:])) {
				out = append(out, "file")
			}
		}
	}
	return out
}
