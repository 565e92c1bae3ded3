package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
)

// RegistrySettings is one MCP registry the file names: the optional
// top-level "registries" list (docs/registry.md).
//
//	"registries": [{"name": "official", "url": "https://registry.modelcontextprotocol.io"}]
type RegistrySettings struct {
	Name string `json:"name"` // names its index file: lowercase letters, digits and dashes
	URL  string `json:"url"`  // the base URL of its v0.1 API
}

// OfficialRegistry is the registry a file without "registries" uses.
var OfficialRegistry = RegistrySettings{Name: "official", URL: "https://registry.modelcontextprotocol.io"}

// registryName is a registry's name: it names a file.
var registryName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

const registriesExample = `[{"name": "official", "url": "https://registry.modelcontextprotocol.io"}]`

// Registries returns the registries the file names, in its order: the
// official one when the key is absent (or null), none for []. The error
// is the first problem ([File.Check] reports them all), with a nil list:
// nothing is synced from a list that was meant otherwise.
func (f *File) Registries() ([]RegistrySettings, error) {
	rs, ps := f.readRegistries()
	if len(ps) > 0 {
		return nil, ps[0]
	}
	return rs, nil
}

// registriesProblems are the problems of "registries", for the Report.
func (f *File) registriesProblems() []Problem {
	_, ps := f.readRegistries()
	return ps
}

func (f *File) readRegistries() ([]RegistrySettings, []Problem) {
	raw, ok := f.extra["registries"]
	if !ok || isNull(raw) {
		return []RegistrySettings{OfficialRegistry}, nil
	}
	var items []json.RawMessage
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, []Problem{{Key: "registries", Message: fmt.Sprintf("is %s, not a list of registries: write %s, or remove it for the official registry alone", jsonKind(raw), registriesExample)}}
	}
	var out []RegistrySettings
	var ps []Problem
	seen := map[string]bool{}
	for i, item := range items {
		key := fmt.Sprintf("registries[%d]", i)
		ms, dups, err := decodeObject(item)
		if err != nil {
			ps = append(ps, Problem{Key: key, Message: fmt.Sprintf(`is %s, not a registry: write {"name": "official", "url": "%s"}`, jsonKind(item), OfficialRegistry.URL)})
			continue
		}
		for _, d := range dups {
			ps = append(ps, Problem{Key: key + "." + d, Message: "appears more than once: keep one"})
		}
		var r RegistrySettings
		bad := false
		for _, m := range ms {
			var s string
			switch m.Key {
			case "name", "url":
				if json.Unmarshal(m.Value, &s) != nil {
					ps = append(ps, Problem{Key: key + "." + m.Key, Message: fmt.Sprintf("is %s, not a string", jsonKind(m.Value))})
					bad = true
					continue
				}
				if m.Key == "name" {
					r.Name = s
				} else {
					r.URL = s
				}
			default:
				ps = append(ps, Problem{Key: key + "." + m.Key, Message: `is not a known key: a registry has "name" and "url"`})
				bad = true
			}
		}
		switch {
		case r.Name == "":
			ps = append(ps, Problem{Key: key + ".name", Message: `is missing: give the registry a short name, like "official" or "work"`})
			bad = true
		case !registryName.MatchString(r.Name):
			ps = append(ps, Problem{Key: key + ".name", Message: fmt.Sprintf("%q is not a registry name: use 1 to 32 lowercase letters, digits and dashes (it names the index file)", r.Name)})
			bad = true
		case r.Name == "catalog":
			ps = append(ps, Problem{Key: key + ".name", Message: `"catalog" is the name of Switchboard's built-in templates: choose another`})
			bad = true
		case seen[r.Name]:
			ps = append(ps, Problem{Key: key + ".name", Message: fmt.Sprintf("%q names two registries: give each its own name", r.Name)})
			bad = true
		}
		seen[r.Name] = true
		if r.URL == "" {
			ps = append(ps, Problem{Key: key + ".url", Message: fmt.Sprintf(`is missing: give the registry's base URL, like %q`, OfficialRegistry.URL)})
			bad = true
		} else if msg := checkRegistryURL(r.URL); msg != "" {
			ps = append(ps, Problem{Key: key + ".url", Message: msg})
			bad = true
		}
		if !bad {
			out = append(out, r)
		}
	}
	return out, ps
}

// checkRegistryURL says what is wrong with a registry's URL ("" if
// nothing): https, or http to this machine; no credentials, query or
// fragment. (app/registry.CheckURL is the same rule for its client.)
func checkRegistryURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("%q is not a URL: write it like %q", raw, OfficialRegistry.URL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		h := u.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Sprintf("%q is plain http: a registry's answers say what to run, so it must be https (http only to this machine: localhost, 127.0.0.1, ::1)", raw)
		}
	default:
		return fmt.Sprintf("%q is not an https URL: write it like %q", raw, OfficialRegistry.URL)
	}
	if u.User != nil {
		return fmt.Sprintf("%q holds a user name or password: a registry is read without credentials", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Sprintf("%q has a query or a fragment: give the registry's base URL only", raw)
	}
	return ""
}
