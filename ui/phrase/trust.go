package phrase

import "strconv"

// HeldBadge is the badge of a server with tools held for review (a new or
// changed tool definition, docs/trust.md), as the window's server list and
// Overview and the tray's menu show it: "1 tool changed: review",
// "3 tools changed: review"; "" for none.
func HeldBadge(n int) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "1 tool changed: review"
	}
	return strconv.Itoa(n) + " tools changed: review"
}
