package configedit

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// ListProfiles returns the file's profiles, in its order, with their
// problems.
func ListProfiles(f *config.File) []hostapi.ProfileInfo {
	all := f.ProfileProblems()
	out := []hostapi.ProfileInfo{}
	for _, name := range f.ProfileNames() {
		p := f.Profile(name)
		if p == nil {
			continue
		}
		info := hostapi.ProfileInfo{Name: name, ProfileEntry: EntryOf(p), Missing: f.MissingServers(name)}
		prefix := "profiles." + name
		for _, pr := range all {
			if pr.Key == prefix || strings.HasPrefix(pr.Key, prefix+".") || strings.HasPrefix(pr.Key, prefix+"[") ||
				strings.HasPrefix(pr.Key, fmt.Sprintf("profiles[%q]", name)) {
				info.Problems = append(info.Problems, pr)
			}
		}
		out = append(out, info)
	}
	return out
}

// EntryOf is a profile as the API sends it.
func EntryOf(p *config.Profile) hostapi.ProfileEntry {
	e := hostapi.ProfileEntry{Servers: p.Servers, ToolMode: p.ToolMode, Roots: p.Roots, Sampling: p.Sampling}
	if p.Tools != nil {
		e.Allow, e.Deny = p.Tools.Allow, p.Tools.Deny
	}
	return e
}

// ProfileOf is the config's profile of an API entry.
func ProfileOf(e hostapi.ProfileEntry) *config.Profile {
	p := &config.Profile{Servers: e.Servers, ToolMode: e.ToolMode, Roots: e.Roots, Sampling: e.Sampling}
	if len(e.Allow) > 0 || len(e.Deny) > 0 {
		p.Tools = &config.Tools{Allow: e.Allow, Deny: e.Deny}
	}
	return p
}

// PutProfile adds or replaces the profile name. A profile with problems
// (an invalid name, a malformed pattern, an unknown tool mode) is refused
// with every problem listed, and nothing is written; a server the config
// lacks is not a problem here (the profile works with the others, and a
// server added later shows up in it). Errors are *hostapi.Error.
func PutProfile(f *config.File, name string, e hostapi.ProfileEntry) error {
	if !config.ValidServerName(name) {
		return invalidProfileName(name)
	}
	p := ProfileOf(e)
	check := config.New()
	if err := check.SetProfile(name, p); err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: err.Error()}
	}
	var ps []config.Problem
	for _, pr := range check.ProfileProblems() {
		if !pr.Warning {
			ps = append(ps, pr)
		}
	}
	if len(ps) > 0 {
		msgs := make([]string, len(ps))
		for i, pr := range ps {
			msgs[i] = pr.Error()
		}
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig,
			Message:  fmt.Sprintf("profile %q was not saved: %s", name, strings.Join(msgs, "; ")),
			Problems: ps}
	}
	if err := f.SetProfile(name, p); err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: err.Error() + ": correct the file's \"profiles\" first"}
	}
	return nil
}

// RemoveProfile removes the profile name.
func RemoveProfile(f *config.File, name string) error {
	if !f.RemoveProfile(name) {
		return profileNotFound(name)
	}
	return nil
}

// RenameProfile gives the profile old the name new. The AI apps whose
// entries name the old profile keep it until they are connected again
// (the caller tells the user which).
func RenameProfile(f *config.File, old, new string) error {
	if f.Profile(old) == nil {
		return profileNotFound(old)
	}
	if !config.ValidServerName(new) {
		return invalidProfileName(new)
	}
	if old == new {
		return nil
	}
	if f.Profile(new) != nil {
		return &hostapi.Error{Code: hostapi.CodeAlreadyExists,
			Message: fmt.Sprintf("profile %q already exists: remove it first ('switchboard profiles rm %s'), or choose another name", new, new)}
	}
	f.RenameProfile(old, new)
	return nil
}

func profileNotFound(name string) error {
	return &hostapi.Error{Code: hostapi.CodeNotFound,
		Message: fmt.Sprintf("profile %q is not in the config; 'switchboard profiles' lists them", name)}
}

func invalidProfileName(name string) error {
	return &hostapi.Error{Code: hostapi.CodeInvalidName,
		Message: fmt.Sprintf("profile name %q is invalid: use 1 to 31 lower-case letters, digits and '-', starting with a letter or digit (for example %q)",
			name, config.NormalizeName(name))}
}
