package config

import (
	"encoding/json"
	"sort"
)

// Diff compares two configurations for running purposes: which servers to
// start (added), stop (removed) and restart (changed). Only runnable servers
// count: valid, not disabled and not remote. So enabling a server adds it,
// disabling it removes it, and an entry that becomes invalid is removed (and
// added back once fixed); a change to a disabled or invalid entry lists
// nothing. A server has changed when anything that reaches its process or
// its transport has: the engine spec with defaults filled in, so writing out
// a default is not a change but an explicit 0 is. callTimeout and tools are
// not part of it: they are read per call, and need no restart. old may be
// nil (everything runnable in new is added). Each list is sorted.
func Diff(old, new *File) (added, removed, changed []string) {
	o, n := runnable(old), runnable(new)
	for name, nk := range n {
		ok, had := o[name]
		switch {
		case !had:
			added = append(added, name)
		case ok != nk:
			changed = append(changed, name)
		}
	}
	for name := range o {
		if _, has := n[name]; !has {
			removed = append(removed, name)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// runnable returns the effective content of each runnable server.
func runnable(f *File) map[string]string {
	m := map[string]string{}
	if f == nil {
		return m
	}
	for name, s := range f.Servers {
		if s == nil || s.Disabled || s.remote != "" {
			continue
		}
		spec, ps := s.validate(name)
		if len(ps) > 0 {
			continue
		}
		key, err := json.Marshal(spec)
		if err != nil {
			continue
		}
		m[name] = string(key)
	}
	return m
}
