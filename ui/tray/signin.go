package tray

// Remote servers that need a sign-in (issue 17, docs/remote.md): a menu
// line "NAME: sign in needed" that starts the sign-in and opens its page
// in the browser, and a notification once when a server comes to need it.

import (
	"context"
	"fmt"
	"net/url"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// SignInLabel is a server's line in the menu when it needs a sign-in.
func SignInLabel(server string) string { return server + ": sign in needed" }

// signInItems are the lines of the servers that need a sign-in; each
// calls a.SignIn (disabled without it).
func signInItems(s client.Snapshot, a Actions) []*fyne.MenuItem {
	var out []*fyne.MenuItem
	for _, st := range s.Servers {
		if st.State != hostapi.StateSignInNeeded {
			continue
		}
		name := st.Name
		var do func()
		if a.SignIn != nil {
			do = func() { a.SignIn(name) }
		}
		out = append(out, item(SignInLabel(name), do, true))
	}
	return out
}

// newlySignIn returns the servers that came to need a sign-in since the
// last snapshot of the same host, as newlyFailed does for failures (which
// it must run before: it reads the states newlyFailed keeps). The first
// snapshot of a host is the baseline: the menu's line shows a server that
// needed it already.
func (t *Tray) newlySignIn(s client.Snapshot) []hostapi.ServerStatus {
	if !s.Connected || t.states == nil || s.Info.PID != t.hostPID {
		return nil
	}
	var out []hostapi.ServerStatus
	for _, st := range s.Servers {
		if st.State == hostapi.StateSignInNeeded && t.states[st.Name] != hostapi.StateSignInNeeded {
			out = append(out, st)
		}
	}
	return out
}

// SignInNotification is the desktop notification for a server that needs
// a sign-in.
func SignInNotification(st hostapi.ServerStatus) *fyne.Notification {
	return fyne.NewNotification(fmt.Sprintf("Server %q: sign in needed", st.Name),
		fmt.Sprintf("Choose %q in the Switchboard menu to sign in with your browser.", SignInLabel(st.Name)))
}

// signIn starts a server's sign-in (servers.login) and opens the page the
// host answers in the browser; the host completes the sign-in when the
// browser comes back to it.
func (h *hostActions) signIn(name string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.o.Timeout)
		defer cancel()
		page, err := h.live.Login(ctx, name)
		if err != nil {
			h.o.OnError(fmt.Sprintf("Switchboard could not sign in to %q", name), err)
			return
		}
		u, err := url.Parse(page)
		if err == nil {
			err = h.openURL(u)
		}
		if err != nil {
			h.o.OnError(fmt.Sprintf("Switchboard could not open the sign-in page of %q", name),
				fmt.Errorf("%w; open it yourself: %s", err, page))
		}
	}()
}

// openURL opens u in the browser: HostOptions.OpenURL, else the app's.
func (h *hostActions) openURL(u *url.URL) error {
	if h.o.OpenURL != nil {
		return h.o.OpenURL(u)
	}
	return h.app.OpenURL(u)
}
