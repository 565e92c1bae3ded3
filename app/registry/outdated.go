package registry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MinReleaseAge is how old a release must be before it is offered as an
// update (issue 28 §7): a compromised release is usually found and
// pulled within days, so one younger than this is listed as too new,
// and not counted, unless the user asks (--allow-new).
const MinReleaseAge = 72 * time.Hour

// Installed is a server added from a registry, as servers.lock records
// it: its name in the config and the registry entry and version it came
// from.
type Installed struct {
	Server   string // its name in the config (servers.lock's key)
	Registry string // the registry's name in the config
	Entry    string // the entry's name in the registry
	Version  string // the entry's version it was added at
}

// Update is what an index says of one installed server.
type Update struct {
	Installed
	// Latest is the index's version of the entry ("" when the index has
	// no such entry: Missing).
	Latest      string    `json:"latest,omitempty"`
	PublishedAt time.Time `json:"publishedAt,omitzero"`
	// Newer: Latest is a newer release than Version (CompareVersions).
	Newer bool `json:"newer"`
	// TooNew: Newer, but published less than MinReleaseAge ago (or at
	// an unknown time): not offered unless allowed.
	TooNew bool `json:"tooNew,omitempty"`
	// AgeDays is the release's age in whole days (when PublishedAt is
	// known).
	AgeDays int `json:"ageDays"`
	// Offered: Newer, and old enough or allowed: an update to review.
	Offered bool `json:"offered"`
	// Status and StatusMessage are the entry's status in the index
	// (deprecated); Missing says the index has no such entry (deleted,
	// or a registry no longer in the config).
	Status        string `json:"status,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
	Missing       bool   `json:"missing,omitempty"`
}

// Outdated says, for each installed server (in the order given), what
// its registry's index holds of its entry: a newer version or not, and
// whether it is offered now (old enough, or allowNew). indexes are by
// registry name.
func Outdated(installed []Installed, indexes map[string]*Index, now time.Time, allowNew bool) []Update {
	byName := map[string]map[string]*Entry{}
	for name, ix := range indexes {
		m := make(map[string]*Entry, len(ix.Entries))
		for i := range ix.Entries {
			m[ix.Entries[i].Server.Name] = &ix.Entries[i]
		}
		byName[name] = m
	}
	out := make([]Update, 0, len(installed))
	for _, in := range installed {
		u := Update{Installed: in}
		e := byName[in.Registry][in.Entry]
		if e == nil {
			u.Missing = true
			out = append(out, u)
			continue
		}
		u.Latest, u.Status, u.StatusMessage = e.Server.Version, e.Status, e.StatusMessage
		u.Newer = IsNewer(e, in.Version)
		if t, err := time.Parse(time.RFC3339Nano, e.PublishedAt); err == nil {
			u.PublishedAt = t
			u.AgeDays = int(now.Sub(t) / (24 * time.Hour))
		}
		if u.Newer {
			u.TooNew = u.PublishedAt.IsZero() || now.Sub(u.PublishedAt) < MinReleaseAge
			u.Offered = !u.TooNew || allowNew
		}
		out = append(out, u)
	}
	return out
}

// CountOffered is the number of updates offered (the tray's "N updates
// to review").
func CountOffered(us []Update) int {
	n := 0
	for _, u := range us {
		if u.Offered {
			n++
		}
	}
	return n
}

// IsNewer says whether the index's entry latest is a newer release than
// version: by semantic versioning when both versions parse as one
// (CompareVersions), else — a date, a commit, "latest" — the index holds
// the registry's latest version of each server (isLatest), so a version
// other than the installed one is the newer.
func IsNewer(latest *Entry, version string) bool {
	if c, ok := CompareVersions(latest.Server.Version, version); ok {
		return c > 0
	}
	return latest.Server.Version != "" && latest.Server.Version != version
}

// CompareVersions compares two semantic versions (2.0.0 spec; a leading
// "v" allowed): -1, 0 or 1 as a is older, the same release or newer than
// b, and ok false when either does not parse. Build metadata is ignored;
// a pre-release is older than its release.
func CompareVersions(a, b string) (int, bool) {
	va, ok1 := parseSemver(a)
	vb, ok2 := parseSemver(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	for i := range 3 {
		if va.num[i] != vb.num[i] {
			if va.num[i] < vb.num[i] {
				return -1, true
			}
			return 1, true
		}
	}
	return comparePre(va.pre, vb.pre), true
}

type semver struct {
	num [3]uint64
	pre []string
}

func parseSemver(s string) (semver, bool) {
	var v semver
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return v, false
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, false
		}
		v.num[i] = n
	}
	if hasPre {
		if pre == "" {
			return v, false
		}
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" {
				return v, false
			}
		}
	}
	return v, true
}

// comparePre compares pre-release identifiers (semver §11): none is
// newer than any; numeric identifiers compare as numbers and are older
// than alphanumeric ones; a longer list is newer when the shorter is its
// prefix.
func comparePre(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		na, errA := strconv.ParseUint(a[i], 10, 64)
		nb, errB := strconv.ParseUint(b[i], 10, 64)
		switch {
		case errA == nil && errB == nil:
			if na != nb {
				return cmp(na < nb)
			}
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		default:
			if a[i] != b[i] {
				return cmp(a[i] < b[i])
			}
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func cmp(less bool) int {
	if less {
		return -1
	}
	return 1
}

// SortUpdates orders updates: offered first, then too new, then the
// rest, each by server name.
func SortUpdates(us []Update) {
	rank := func(u Update) int {
		switch {
		case u.Offered:
			return 0
		case u.Newer:
			return 1
		}
		return 2
	}
	sort.SliceStable(us, func(i, j int) bool {
		if ri, rj := rank(us[i]), rank(us[j]); ri != rj {
			return ri < rj
		}
		return us[i].Server < us[j].Server
	})
}

// TooNewText is how a release too young to offer is said: "too new to
// offer (1 day; --allow-new)".
func TooNewText(u Update) string {
	age := "age unknown"
	if !u.PublishedAt.IsZero() {
		age = fmt.Sprintf("%d day", u.AgeDays)
		if u.AgeDays != 1 {
			age += "s"
		}
	}
	return "too new to offer (" + age + "; --allow-new)"
}
