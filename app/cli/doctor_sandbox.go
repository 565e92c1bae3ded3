package cli

import (
	"runtime"
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
		if sup.Mechanism == "landlock" && sup.NetNone == "" {
			if len(required) > 0 {
				bad(`sandbox: no seccomp filter here, so Unix sockets cannot be closed: %s require a sandbox and will not start: run a kernel with seccomp (CONFIG_SECCOMP_FILTER), or set "sandboxRequired": false in their entries`,
					strings.Join(required, ", "))
			} else {
				info(`sandbox: no seccomp filter here: a sandbox that is required will not start (Unix sockets cannot be closed)`)
			}
		}
		return
	}
	if len(required) > 0 {
		remedy := "run a kernel with Landlock"
		if runtime.GOOS != "linux" {
			remedy = "this system has no sandbox Switchboard can enforce"
		}
		bad(`sandbox: %s; %s require a sandbox and will not start: %s, or set "sandboxRequired": false in their entries`,
			sup, strings.Join(required, ", "), remedy)
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
// The words are hostapi's (SandboxStatus.Line), which the window shows too.
func sandboxLine(sb *hostapi.SandboxStatus) string {
	if l := sb.Line(); l != "" {
		return "sandbox " + l
	}
	return ""
}
