package tray

import (
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// LabelUpdatesHint follows the menu's "N updates to review": where they
// are listed.
const LabelUpdatesHint = "'switchboard registry outdated' lists them"

// UpdatesLabel is the menu's line for the servers added from a registry
// that have a newer release to review (Info.Updates: old enough to offer,
// docs/registry.md "Outdated servers").
func UpdatesLabel(n int) string {
	if n == 1 {
		return "1 update to review"
	}
	return fmt.Sprintf("%d updates to review", n)
}

// updatesLines are the menu's lines for the updates to review; none
// without any.
func updatesLines(s client.Snapshot) []string {
	if s.Info.Updates <= 0 {
		return nil
	}
	return []string{UpdatesLabel(s.Info.Updates), LabelUpdatesHint}
}

// newlyNoticed returns the registry notices (a server's registry entry
// deleted or deprecated) that this tray has not notified yet. The first
// snapshot of a host is the baseline: what it already holds happened
// before this tray followed it (its servers' states show it).
func (t *Tray) newlyNoticed(s client.Snapshot) []hostapi.RegistryNotice {
	if !s.Connected {
		return nil
	}
	baseline := !t.noticed || s.Info.PID != t.noticePID
	last := t.lastNotice
	if baseline {
		last = 0
	}
	var out []hostapi.RegistryNotice
	for _, n := range s.Info.RegistryNotices {
		if n.ID > last {
			if !baseline {
				out = append(out, n)
			}
			last = n.ID
		}
	}
	t.noticed, t.noticePID, t.lastNotice = true, s.Info.PID, last
	return out
}

// RegistryNotification is the desktop notification of a registry
// notice: "NAME was removed from the registry REG: MESSAGE; it is
// disabled", or deprecated and still running. The registry's message is
// escaped (it is the registry's text, not the desktop's to act on).
func RegistryNotification(n hostapi.RegistryNotice) *fyne.Notification {
	title := fmt.Sprintf("Server %q deprecated in its registry", n.Server)
	if n.Status == "deleted" {
		title = fmt.Sprintf("Server %q removed from its registry", n.Server)
	}
	return fyne.NewNotification(title, termtext.Escape(n.Line))
}
