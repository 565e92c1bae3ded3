package cli

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// doctorSandbox says what this machine can enforce of a server's sandbox
// (docs/sandbox.md), and which entries require a sandbox it cannot.
func doctorSandbox(file *config.File, ok, bad, info func(string, ...any)) {
	sup := sbx.Probe()
	var required, optional []string
	if file != nil {
		for _, name := range file.Names() {
			s := file.Servers[name]
			if s == nil || s.Disabled {
				continue
			}
			if p, ps := s.SandboxPolicy(); p.Enabled && len(ps) == 0 {
				if p.Required {
					required = append(required, name)
				} else {
					optional = append(optional, name)
				}
			}
		}
	}
	if sup.Available() {
		ok("sandbox: %s", sup)
		if sup.NetNone == "" {
			info(`sandbox: "net": "none" blocks TCP only here (no seccomp filter): UDP and other sockets stay open`)
		}
		return
	}
	if len(required) > 0 {
		bad(`sandbox: %s; %s require a sandbox and will not start: run a kernel with Landlock, or set "sandboxRequired": false in their entries`,
			sup, strings.Join(required, ", "))
	} else {
		info("sandbox: %s", sup)
	}
	if len(optional) > 0 {
		info(`sandbox: %s run unconfined here ("sandboxRequired": false)`, strings.Join(optional, ", "))
	}
}

// sandboxLine is what `status` says of a server's sandbox: how it is
// confined and what is not enforced, or that it runs unconfined; "" for a
// server without one (and for a refused one: its last error says it).
func sandboxLine(sb *hostapi.SandboxStatus) string {
	switch {
	case sb == nil || sb.Unavailable:
		return ""
	case sb.Unconfined:
		return fmt.Sprintf("sandbox %s NOT enforced, running unconfined (\"sandboxRequired\": false): %s", presetName(sb.Preset), strings.Join(sb.NotEnforced, "; "))
	}
	l := fmt.Sprintf("sandbox %s: %s ABI %d, network by %s", presetName(sb.Preset), sb.Mechanism, sb.ABI, sb.Net)
	if len(sb.NotEnforced) > 0 {
		l += "; not enforced: " + strings.Join(sb.NotEnforced, "; ")
	}
	return l
}

func presetName(p string) string {
	if p == "" {
		return "(custom)"
	}
	return p
}
