package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// The sign-in of remote servers (docs/remote.md). It runs in the host,
// which listens for the browser's return and keeps the tokens in the
// keyring: the CLI asks for it, shows the page (and opens it where it
// can: a browser is never required, the URL can be opened anywhere on
// this machine), and follows the server's state until the sign-in ends.

// loginWait bounds the wait for the browser (the host's own bound is the
// same).
var loginWait = 10 * time.Minute

func (e *env) serversLogin(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("servers login: give the server's NAME")
	}
	name := a.pos[0]
	ctx := context.Background()
	c, err := e.needHost(ctx, "servers login")
	if err != nil {
		return err
	}
	defer c.Close()
	u, err := c.Login(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Open this page to sign in to %s:\n\n  %s\n\n", name, termtext.Escape(u))
	if !a.flag("no-browser") {
		if err := openBrowser(u); err == nil {
			fmt.Fprintln(e.stdout, "(opened in your browser)")
		}
	}
	fmt.Fprintln(e.stdout, "Waiting for the sign-in to finish...")
	deadline := time.Now().Add(loginWait)
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		list, err := c.Servers(ctx)
		if err != nil {
			return err
		}
		for _, st := range list {
			if st.Name != name || st.State == hostapi.StateSigningIn {
				continue
			}
			if st.State == hostapi.StateSignInNeeded {
				return fmt.Errorf("%s: %s", name, termtext.Escape(st.LastError))
			}
			fmt.Fprintf(e.stdout, "signed in to %s: the tokens are in the keyring; it is %s\n", name, st.State.Label())
			return nil
		}
	}
	return fmt.Errorf("%s: the sign-in did not finish within %v: run 'switchboard servers login %s' again", name, loginWait, name)
}

func (e *env) serversLogout(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("servers logout: give the server's NAME")
	}
	name := a.pos[0]
	ctx := context.Background()
	c, err := e.needHost(ctx, "servers logout")
	if err != nil {
		return err
	}
	defer c.Close()
	revoked, err := c.Logout(ctx, name)
	if err != nil {
		return err
	}
	if revoked {
		fmt.Fprintf(e.stdout, "signed out of %s: the tokens were revoked and deleted from the keyring\n", name)
	} else {
		fmt.Fprintf(e.stdout, "signed out of %s: the tokens were deleted from the keyring (the server offers no revocation)\n", name)
	}
	return nil
}
