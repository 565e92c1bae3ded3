package cli

import (
	"fmt"
	"strings"
)

// flagSet is a small parser where flags may stand before or after the
// positional arguments (and the subcommand), up to a "--" that ends them.
type flagSet struct {
	bools   map[string]*bool
	strs    map[string]*string
	multi   map[string]*[]string
	aliases map[string]string
}

func newFlags() *flagSet {
	return &flagSet{bools: map[string]*bool{}, strs: map[string]*string{}, multi: map[string]*[]string{}, aliases: map[string]string{}}
}

func (f *flagSet) Bool(name string, p *bool, aliases ...string) {
	f.bools[name] = p
	for _, a := range aliases {
		f.aliases[a] = name
	}
}
func (f *flagSet) String(name string, p *string)  { f.strs[name] = p }
func (f *flagSet) Multi(name string, p *[]string) { f.multi[name] = p }

// parse returns the positional arguments and, after "--", the rest.
func (f *flagSet) parse(args []string) (pos, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return pos, args[i+1:], nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n, ok := f.aliases[name]; ok {
			name = n
		}
		if p, ok := f.bools[name]; ok {
			if hasVal {
				*p = val == "true" || val == "1" || val == "yes"
			} else {
				*p = true
			}
			continue
		}
		_, isStr := f.strs[name]
		_, isMulti := f.multi[name]
		if !isStr && !isMulti {
			return nil, nil, fmt.Errorf("unknown flag %s", a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("flag %s needs a value", a)
			}
			i++
			val = args[i]
		}
		if isStr {
			*f.strs[name] = val
		} else {
			*f.multi[name] = append(*f.multi[name], val)
		}
	}
	return pos, nil, nil
}
