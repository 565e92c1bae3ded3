package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/english"
)

// flagSet is the one flag parser of the command line: flags may stand
// before or after the positional arguments (and the subcommand), as
// --flag=value or --flag value (one dash works too), up to a "--" that
// ends them.
type flagSet struct {
	bools   map[string]*bool
	strs    map[string]*string
	multi   map[string]*[]string
	aliases map[string]string
	// stopAtArg: the first positional argument ends the flags; it and
	// everything after it are the rest.
	stopAtArg bool
}

func newFlags() *flagSet {
	return &flagSet{bools: map[string]*bool{}, strs: map[string]*string{}, multi: map[string]*[]string{}, aliases: map[string]string{}}
}

// names are the flags' long names, for a guess at a misspelled one.
func (f *flagSet) names() []string {
	out := slices.Concat(slices.Collect(maps.Keys(f.bools)), slices.Collect(maps.Keys(f.strs)), slices.Collect(maps.Keys(f.multi)))
	out = slices.DeleteFunc(out, func(n string) bool { return len(n) < 2 })
	slices.Sort(out) // the same guess every time
	return out
}

func (f *flagSet) alias(name string, aliases []string) {
	for _, a := range aliases {
		f.aliases[a] = name
	}
}

func (f *flagSet) Bool(name string, p *bool, aliases ...string) {
	f.bools[name] = p
	f.alias(name, aliases)
}

func (f *flagSet) String(name string, p *string, aliases ...string) {
	f.strs[name] = p
	f.alias(name, aliases)
}

func (f *flagSet) Multi(name string, p *[]string, aliases ...string) {
	f.multi[name] = p
	f.alias(name, aliases)
}

// parse returns the positional arguments and, after "--", the rest.
func (f *flagSet) parse(args []string) (pos, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return pos, args[i+1:], nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if f.stopAtArg {
				return pos, args[i:], nil
			}
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n, ok := f.aliases[name]; ok {
			name = n
		}
		if p, ok := f.bools[name]; ok {
			if hasVal {
				switch val {
				case "true", "1", "yes":
					*p = true
				case "false", "0", "no":
					*p = false
				default:
					return nil, nil, fmt.Errorf("flag %s: say true or false", a)
				}
			} else {
				*p = true
			}
			continue
		}
		_, isStr := f.strs[name]
		_, isMulti := f.multi[name]
		if !isStr && !isMulti {
			if near := english.Nearest(name, f.names()); near != "" {
				return nil, nil, fmt.Errorf("unknown flag %s (did you mean --%s?)", a, near)
			}
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
