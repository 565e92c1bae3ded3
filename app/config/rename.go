package config

import "slices"

// RenameServer moves the entry old to the name new, in old's place in the
// file, with every key as written (unknown ones too). It reports whether
// old was there; the caller checks that new is a valid name and free
// (Check reports an invalid one). The env's secret references are not
// touched: a secret is named on its own, not after its server.
func (f *File) RenameServer(old, new string) bool {
	s, ok := f.Servers[old]
	if !ok {
		return false
	}
	delete(f.Servers, old)
	f.order = slices.DeleteFunc(f.order, func(n string) bool { return n == new })
	if i := slices.Index(f.order, old); i >= 0 {
		f.order[i] = new
	} else {
		f.order = append(f.order, new)
	}
	if s != nil {
		s.checked = false
	}
	f.Servers[new] = s
	return true
}
