package hostapi

import (
	"fmt"
	"strings"
)

// SandboxStatus is what confines a server (issue 16, docs/sandbox.md), in
// ServerStatus.Sandbox: absent for a server without a sandbox.
type SandboxStatus struct {
	// Preset is the entry's preset ("strict", "files", "network"), "" for
	// a hand-written object.
	Preset string `json:"preset,omitempty"`
	// Mechanism is "landlock" (Linux), or "" when nothing confines it.
	Mechanism string `json:"mechanism,omitempty"`
	// ABI is the Landlock ABI the rules were written for.
	ABI int `json:"abi,omitempty"`
	// Enforced and NotEnforced are the parts of the policy enforced and
	// not enforced on this machine, in words.
	Enforced    []string `json:"enforced,omitempty"`
	NotEnforced []string `json:"notEnforced,omitempty"`
	// Net says how the network part is enforced: "landlock",
	// "landlock+seccomp".
	Net string `json:"net,omitempty"`
	// Unconfined: the sandbox is not available here and the entry says
	// "sandboxRequired": false, so the server runs with all the user's
	// rights.
	Unconfined bool `json:"unconfined,omitempty"`
	// Unavailable: the sandbox is not available here and the entry
	// requires it, so the server is not started (its Issues say what to do).
	Unavailable bool `json:"unavailable,omitempty"`
}

// Line is the sandbox in one line, as `switchboard status` says it after
// "sandbox ": its preset, how it is confined and what is not enforced,
// or that it runs unconfined; "" for no sandbox (nil) and for one that
// is not available here (the server is not started: its Issues say why).
// The front ends show this line rather than compose their own.
func (sb *SandboxStatus) Line() string {
	switch {
	case sb == nil || sb.Unavailable:
		return ""
	case sb.Unconfined:
		return fmt.Sprintf("%s NOT enforced, running unconfined (\"sandboxRequired\": false): %s", sb.presetName(), strings.Join(sb.NotEnforced, "; "))
	}
	l := fmt.Sprintf("%s: %s, network by %s", sb.presetName(), sb.Mechanism, sb.Net)
	if sb.ABI > 0 {
		l = fmt.Sprintf("%s: %s ABI %d, network by %s", sb.presetName(), sb.Mechanism, sb.ABI, sb.Net)
	}
	if len(sb.NotEnforced) > 0 {
		l += "; not enforced: " + strings.Join(sb.NotEnforced, "; ")
	}
	return l
}

func (sb *SandboxStatus) presetName() string {
	if sb.Preset == "" {
		return "(custom)"
	}
	return sb.Preset
}
