package host

import (
	"encoding/json"
	"sort"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// ServerConfigs turns a checked config file into what the manager runs.
// Entries with problems are listed with their problems and never started;
// a remote entry's config carries its RemoteSpec (remote.go).
func ServerConfigs(f *config.File) []ServerConfig {
	var out []ServerConfig
	defaults := f.Defaults()
	for _, name := range f.Names() {
		s := f.Servers[name]
		if s == nil {
			continue
		}
		c := ServerConfig{Name: name, Disabled: s.Disabled, CallTimeout: s.CallTimeout(), Secrets: s.SecretRefs()}
		c.Problems = s.Problems()
		spec, err := specOf(s, name)
		if err != nil && len(c.Problems) == 0 {
			c.Problems = append(c.Problems, hostapi.Problem{Server: name, Message: err.Error()})
		}
		c.Spec = spec
		if len(c.Problems) == 0 {
			c.Notes = s.Notes(name)
		}
		c.Command = s.Command
		c.Tools = s.Tools
		c.Trust = s.Trust
		c.OnDemand = s.StartMode(defaults) == config.StartOnDemand
		c.IdleStop = s.IdleStop(defaults)
		fp, _ := json.Marshal(spec)
		c.Fingerprint = string(fp)
		if r, _ := s.RemoteSpec(name); r != nil {
			// A remote server (remote.go): its secrets are its headers';
			// the fingerprint covers its address, type, headers (their
			// references, never the values) and oauth.
			c.Remote, c.Secrets = r, r.Secrets()
			rfp, _ := json.Marshal(r)
			c.Fingerprint += string(rfp)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
