package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// OpenBundle opens the window alone on a bundle file's page (the card
// and the install form): main sets it in a build with the UI. nil: no
// window here.
var OpenBundle func(file string) error

var bundlesOpenRow = &command{name: "bundles open", args: "FILE",
	summary: "the window on a bundle's card and install form (what \"Open with Switchboard\" runs); with no display, the card and the install command",
	help: `open shows FILE's card (signature, author, version, what it will run,
platforms, runtimes, tools) and a form from its user_config in
Switchboard's window: sensitive values go to the keyring through the
host, folders and files become the server's sandbox grants. It runs the
window alone (no second tray icon); closing it quits, and the host keeps
the installed server. With no display (no DISPLAY or WAYLAND_DISPLAY on
Linux) or in a build without the window, it prints the card as 'bundles
check' does and the 'bundles install' command to run; it exits 1 only
when the bundle is refused whatever values are given.
`,
	run: (*env).bundlesOpen}

// hasDisplay says a window can be shown: always on macOS and Windows,
// with DISPLAY or WAYLAND_DISPLAY elsewhere.
func hasDisplay(getenv func(string) string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// bundlesOpen is 'switchboard bundles open FILE'.
func (e *env) bundlesOpen(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles open takes one FILE")
	}
	path, err := filepath.Abs(a.pos[0])
	if err != nil {
		return err
	}
	if fi, err := os.Stat(path); err != nil {
		return fmt.Errorf("the bundle %s: %w", a.pos[0], err)
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file: give a .mcpb file", a.pos[0])
	}
	if OpenBundle != nil && hasDisplay(e.getenv) && !e.json {
		return OpenBundle(path)
	}
	card, err := e.inspectBundle(path, nil)
	if err != nil {
		return err
	}
	if e.json {
		if err := e.printJSON(card); err != nil {
			return err
		}
	} else {
		c := *card
		c.Problems = card.Refusals() // the values' problems: the command below gives them
		e.printBundleCard(c)
		if len(c.Problems) == 0 {
			fmt.Fprintf(e.stdout, "\nTo install it:\n  %s\n", installCommand(card))
			for _, o := range card.Options {
				if o.Sensitive && o.Required {
					fmt.Fprintf(e.stdout, "%s is sensitive: 'bundles install' asks for it on a terminal (it goes to the keyring, never into a file)\n", termtext.Escape(o.Key))
				}
			}
		}
	}
	if len(card.Refusals()) > 0 {
		return exitError{1}
	}
	return nil
}

// installCommand is the 'bundles install' command line for card's file:
// a --set for each required option without a default that is not
// sensitive, --insist for an invalid signature.
func installCommand(card *install.BundleCard) string {
	args := []string{"switchboard", "bundles", "install", shellQuote(card.File)}
	for _, o := range card.Options {
		if o.Required && !o.Sensitive && o.Default == nil {
			args = append(args, "--set", shellQuote(o.Key+"=VALUE"))
		}
	}
	if card.Signature.State == "invalid" {
		args = append(args, "--insist")
	}
	return termtext.Escape(strings.Join(args, " "))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
