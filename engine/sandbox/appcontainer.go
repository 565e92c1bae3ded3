package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
)

// Windows access masks the plan grants (winnt.h).
const (
	// AccessReadExecute is FILE_GENERIC_READ | FILE_GENERIC_EXECUTE: what
	// icacls calls (RX).
	AccessReadExecute uint32 = 0x001200a9
	// AccessModify is read, write, execute and DELETE: icacls's (M).
	AccessModify uint32 = 0x001301bf
)

// Well-known capability SIDs (the AppContainer network capabilities).
const (
	// SIDInternetClient is the internetClient capability: outbound
	// connections to the internet (not to the local network, not to the
	// loopback).
	SIDInternetClient = "S-1-15-3-1"
	// SIDPrivateNetworkClientServer is privateNetworkClientServer: the
	// home and work networks, inbound and outbound.
	SIDPrivateNetworkClientServer = "S-1-15-3-3"
)

// JobLimitKillOnJobClose is JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, the limit
// the engine already sets on every server's job object (engine/reaper_windows.go).
const JobLimitKillOnJobClose uint32 = 0x00002000

// Grant is one access-control entry the plan adds to a path for the
// container's SID, inherited by what the directory holds.
type Grant struct {
	Path   string
	Access uint32 // AccessReadExecute or AccessModify
	Mode   string // "read" or "modify", for display
}

// AppContainerPlan is a Policy as Windows enforces it: the server runs in
// an AppContainer (a profile named Name whose SID is SID), with the
// network capabilities Capabilities, the paths of Grants opened to that
// SID, inside the job object the engine already creates (JobLimits).
type AppContainerPlan struct {
	Name         string   // the AppContainer profile's name (CreateAppContainerProfile)
	DisplayName  string   // shown in Windows's tools
	SID          string   // S-1-15-2-..., as DeriveAppContainerSidFromAppContainerName gives it
	Capabilities []string // capability SIDs
	Grants       []Grant  // read+execute, then modify
	JobLimits    uint32   // the job object's LimitFlags
	Notes        []string // what the plan cannot enforce as asked, in words
}

// appContainerPrefix starts every container name: the profiles
// Switchboard made are recognisable (and removable) by it.
const appContainerPrefix = "Switchboard."

// AppContainerName is the AppContainer profile name of a server:
// "Switchboard." and the server's name, within CreateAppContainerProfile's
// rules (at most 64 characters of [-_.A-Za-z0-9]). A name that had to be
// changed to fit gets a hash of the original, so two servers never share
// a container.
func AppContainerName(server string) string {
	var b strings.Builder
	for _, r := range server {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	clean := b.String()
	if clean == server && len(appContainerPrefix)+len(clean) <= 64 && clean != "" {
		return appContainerPrefix + clean
	}
	sum := sha256.Sum256([]byte(server))
	tag := fmt.Sprintf("-%x", sum[:4])
	if max := 64 - len(appContainerPrefix) - len(tag); len(clean) > max {
		clean = clean[:max]
	}
	return appContainerPrefix + clean + tag
}

// AppContainerSID is the SID Windows derives from a container name
// (DeriveAppContainerSidFromAppContainerName): S-1-15-2- and the first 28
// bytes of the SHA-256 of the lower-case name in UTF-16LE, as seven
// little-endian sub-authorities.
func AppContainerSID(name string) string {
	u := utf16.Encode([]rune(strings.ToLower(name)))
	buf := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(buf[2*i:], c)
	}
	sum := sha256.Sum256(buf)
	var b strings.Builder
	b.WriteString("S-1-15-2")
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "-%d", binary.LittleEndian.Uint32(sum[4*i:]))
	}
	return b.String()
}

// appContainerPlanFor turns a server's Policy and the runtime's needs
// into the AppContainer plan. A disabled policy has no plan (nil): the
// server starts as it always has.
func appContainerPlanFor(server string, p Policy, n Needs) *AppContainerPlan {
	if !p.Enabled {
		return nil
	}
	name := AppContainerName(server)
	plan := &AppContainerPlan{
		Name:        name,
		DisplayName: "Switchboard server " + server,
		SID:         AppContainerSID(name),
		JobLimits:   JobLimitKillOnJobClose,
	}
	switch p.Net {
	case NetOutbound:
		plan.Capabilities = []string{SIDInternetClient}
		plan.Notes = append(plan.Notes,
			"outbound: internetClient reaches the internet only; hosts of the local network would need privateNetworkClientServer (which also allows listening) and the loopback (127.0.0.1) is closed to AppContainers unless exempted with CheckNetIsolation")
	case NetAllow:
		plan.Capabilities = []string{SIDInternetClient}
		plan.Notes = append(plan.Notes,
			fmt.Sprintf("allow-list %s: capabilities cannot name hosts or ports; widened to internetClient (any internet host), as a Windows Filtering Platform filter would be needed for the list", strings.Join(p.NetAllow, ",")))
	default: // none: no capability, no network
	}

	write := winPaths(append(append([]string{}, p.Write...), n.Write...))
	isWrite := map[string]bool{}
	for _, w := range write {
		isWrite[strings.ToLower(w)] = true
	}
	readList := append(append([]string{}, p.Read...), n.Read...)
	if n.Exec != "" {
		readList = append(readList, n.Exec)
	}
	for _, r := range winPaths(readList) {
		if !isWrite[strings.ToLower(r)] {
			plan.Grants = append(plan.Grants, Grant{Path: r, Access: AccessReadExecute, Mode: "read"})
		}
	}
	for _, w := range write {
		plan.Grants = append(plan.Grants, Grant{Path: w, Access: AccessModify, Mode: "modify"})
	}
	return plan
}

// winPaths keeps absolute Windows paths (C:\..., \\server\share\...),
// cleaned of trailing separators, sorted, without duplicates (case
// folded, as NTFS compares them).
func winPaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		p = strings.ReplaceAll(p, "/", `\`)
		if !winAbs(p) {
			continue
		}
		for len(p) > 3 && strings.HasSuffix(p, `\`) {
			p = strings.TrimSuffix(p, `\`)
		}
		k := strings.ToLower(p)
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

func winAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return len(p) > 2
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '\\' &&
		((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// String is the plan in words, as `switchboard doctor` or a test prints it.
func (p *AppContainerPlan) String() string {
	if p == nil {
		return "no sandbox"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "AppContainer %s (%s)\n", p.Name, p.SID)
	caps := "none (no network)"
	if len(p.Capabilities) > 0 {
		caps = strings.Join(p.Capabilities, " ")
	}
	fmt.Fprintf(&b, "capabilities: %s\n", caps)
	for _, g := range p.Grants {
		fmt.Fprintf(&b, "grant %s 0x%08x (OI)(CI) %s\n", g.Mode, g.Access, g.Path)
	}
	fmt.Fprintf(&b, "job limits: 0x%08x\n", p.JobLimits)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
