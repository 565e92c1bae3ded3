package tray

import (
	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// heldItems are the menu's lines for the servers with tools held for
// review (a new or changed tool definition, docs/trust.md): "NAME: 1 tool
// changed: review", which opens the window's review of that server.
func heldItems(s client.Snapshot, a Actions) []*fyne.MenuItem {
	var out []*fyne.MenuItem
	for _, st := range s.Servers {
		if st.Held <= 0 {
			continue
		}
		name := st.Name
		var do func()
		if a.Review != nil {
			do = func() { a.Review(name) }
		}
		out = append(out, item(HeldLabel(name, st.Held), do, true))
	}
	return out
}

// HeldLabel is a server's line for its held tools in the menu.
func HeldLabel(server string, held int) string {
	return server + ": " + phrase.HeldBadge(held)
}
