package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

const approvalsHelp = `A tool call whose server's policy says "ask" (or a tool that says it is
destructive, unless the config's "approvals": {"askDestructive": false})
waits in the host until you allow or deny it here, in the window or in
the tray. Unanswered within the server's approvalTimeout (120 s unless
set), it is denied; with no window, tray or 'switchboard approvals -f'
attached, it is denied at once.

'switchboard approvals -f' keeps printing the waiting calls and makes
this terminal an approver (on a headless host, the one way to be asked).
`

// approvals lists the waiting calls (--follow: as they change).
func (e *env) approvals(a *argv) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	c, err := e.needHost(ctx, "approvals")
	if err != nil {
		return err
	}
	defer c.Close()
	return listOrFollow(e, ctx, a.flag("follow"), c.FollowApprovals, c.Approvals, "no call is waiting for approval",
		func(ap hostapi.Approval) string { return ap.ID }, e.printApproval)
}

// listOrFollow prints a waiting set once or, with follow, as it changes
// until Ctrl-C: what comes is printed, what goes is said; --json prints
// the whole set, one line per change. Approvals and questions both wait
// so.
func listOrFollow[T any](e *env, ctx context.Context, follow bool,
	subscribe func(context.Context) (<-chan []T, error), list func(context.Context) ([]T, error),
	none string, id func(T) string, print func(T)) error {
	var events <-chan []T
	var err error
	if follow {
		// Subscribed before the list is read: no change falls between.
		if events, err = subscribe(ctx); err != nil {
			return err
		}
	}
	now, err := list(ctx)
	if err != nil {
		return err
	}
	if !follow {
		if e.json {
			return e.printJSON(now)
		}
		if len(now) == 0 {
			fmt.Fprintln(e.stdout, none)
		}
		for _, x := range now {
			print(x)
		}
		return nil
	}
	shown := map[string]bool{}
	show := func(l []T) {
		if e.json { // one line per change: the whole waiting set
			b, _ := json.Marshal(l)
			fmt.Fprintln(e.stdout, string(b))
			return
		}
		cur := map[string]bool{}
		for _, x := range l {
			cur[id(x)] = true
			if !shown[id(x)] {
				print(x)
			}
		}
		for k := range shown {
			if !cur[k] {
				fmt.Fprintf(e.stdout, "%s: no longer waiting\n", k)
			}
		}
		shown = cur
	}
	show(now)
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-events:
			if !ok {
				return fmt.Errorf("the connection to the host ended")
			}
			show(l)
		}
	}
}

func (e *env) printApproval(ap hostapi.Approval) {
	app := ap.App
	if app == "" {
		app = "an app"
	}
	if ap.Conn != "" {
		app += " (" + ap.Conn + ")"
	}
	fmt.Fprintf(e.stdout, "%s  %s wants to call %s's tool %s (%s; denied in %v unless decided)\n",
		ap.ID, termtext.Escape(app), termtext.Escape(ap.Server), termtext.Escape(ap.Tool), ap.Why,
		time.Until(ap.Deadline).Round(time.Second))
	if ap.Arguments != nil {
		var b bytes.Buffer
		if json.Indent(&b, ap.Arguments, "    ", "  ") == nil {
			fmt.Fprintf(e.stdout, "    %s\n", termtext.JSON(b.Bytes()))
		}
	} else {
		fmt.Fprintf(e.stdout, "    (arguments of %d bytes, too large to show)\n", ap.ArgumentBytes)
	}
	fmt.Fprintf(e.stdout, "    switchboard approve %s [--for-app | --always]   switchboard deny %s\n", ap.ID, ap.ID)
}

// decide is approve and deny.
func (e *env) decide(a *argv, approve bool) error {
	verb := "deny"
	if approve {
		verb = "approve"
	}
	if len(a.pos) != 1 {
		return usagef("%s: give the ID of one waiting call ('switchboard approvals' lists them)", verb)
	}
	decision := hostapi.DecideDeny
	if approve {
		decision = hostapi.DecideOnce
		switch {
		case a.flag("always") && a.flag("for-app"):
			return usagef("approve: give --always or --for-app, not both")
		case a.flag("always"):
			decision = hostapi.DecideAlways
		case a.flag("for-app"):
			decision = hostapi.DecideApp
		}
	}
	ctx := context.Background()
	c, err := e.needHost(ctx, verb)
	if err != nil {
		return err
	}
	defer c.Close()
	// The request as it waits, read before: after the decision it is gone.
	var ap *hostapi.Approval
	if list, err := c.Approvals(ctx); err == nil {
		for i := range list {
			if list[i].ID == a.pos[0] {
				ap = &list[i]
			}
		}
	}
	if err := c.Decide(ctx, a.pos[0], decision); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, decidedLine(a.pos[0], ap, decision))
	return nil
}

// decidedLine says what a decision did: allowed or denied, which tool of
// which server, for which app, for how long.
func decidedLine(id string, ap *hostapi.Approval, decision string) string {
	what, app := "call "+id, "its app"
	if ap != nil {
		kind := "tool"
		if ap.Kind != "" {
			kind = ap.Kind // "resources/read" ...
		}
		what = fmt.Sprintf("%s's %s %s", termtext.Escape(ap.Server), kind, termtext.Escape(ap.Tool))
		if ap.App != "" {
			app = termtext.Escape(ap.App)
		}
		if ap.Conn != "" {
			app += " (" + termtext.Escape(ap.Conn) + ")"
		}
	}
	switch decision {
	case hostapi.DecideOnce:
		return fmt.Sprintf("allowed %s for %s: this call only (the next one asks again)", what, app)
	case hostapi.DecideApp:
		return fmt.Sprintf("allowed %s for %s: this call and the next ones of this connection, until it ends", what, app)
	case hostapi.DecideAlways:
		return fmt.Sprintf("allowed %s for every app, always: the server's policy in the config now allows it", what)
	default:
		return fmt.Sprintf("denied %s for %s: this call only (the app is told that you denied it; the next one asks again)", what, app)
	}
}
