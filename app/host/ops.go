package host

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// ServerConfigs turns a checked config file into what the manager runs.
// Remote (URL) entries and entries with problems are listed with their
// problems and never started.
func ServerConfigs(f *config.File) []ServerConfig {
	var out []ServerConfig
	defaults := f.Defaults()
	for _, name := range f.Names() {
		s := f.Servers[name]
		if s == nil {
			continue
		}
		c := ServerConfig{Name: name, Disabled: s.Disabled, CallTimeout: s.CallTimeout(), Secrets: s.SecretRefs()}
		c.Problems = configedit.ProblemsOf(s.Problems())
		if r := s.Remote(); r != "" && len(c.Problems) == 0 {
			c.Problems = append(c.Problems, hostapi.Problem{Server: name,
				Message: fmt.Sprintf("remote (URL) servers are not managed by Switchboard (%s)", r)})
		}
		spec, err := s.Spec(name)
		if err != nil && len(c.Problems) == 0 {
			c.Problems = append(c.Problems, hostapi.Problem{Server: name, Message: err.Error()})
		}
		c.Spec = spec
		c.Command = s.Command
		c.Tools = s.Tools
		c.Trust = s.Trust
		c.OnDemand = s.StartMode(defaults) == config.StartOnDemand
		c.IdleStop = s.IdleStop(defaults)
		fp, _ := json.Marshal(spec)
		c.Fingerprint = string(fp)
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
