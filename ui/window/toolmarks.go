package window

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// What the Tools tab says of each tool besides its definition (issue 27
// items 15 and 18): whether AI apps see it (the server's tool filter,
// "tools"; the pinned definitions' review, app/trust), and what a call of
// it from an AI app does (its policy: allow, ask, deny), which the tab
// changes through the host (servers.get and servers.put), never in the
// file. A tool that apps do not see is not tried as the others are: one
// held for review not at all until it is reviewed (its definition is not
// accepted), one the filter hides only after the user says so.

// toolAnnotations are the hints of a tool that its policy reads.
type toolAnnotations struct {
	ReadOnlyHint    bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
}

// The policy choice's labels, by action.
var policyLabels = map[string]string{
	config.PolicyAllow: "Allow",
	config.PolicyAsk:   "Ask me first",
	config.PolicyDeny:  "Deny",
}

var policyOrder = []string{config.PolicyAllow, config.PolicyAsk, config.PolicyDeny}

func policyAction(label string) string {
	for a, l := range policyLabels {
		if l == label {
			return a
		}
	}
	return ""
}

// toolState is what the tab knows of a tool beyond its definition.
type toolState struct {
	hidden   bool              // the server's tool filter leaves it out
	held     *hostapi.HeldTool // held for review, or nil
	action   string            // what a call from an app does
	explicit bool              // the policy names the tool (or a pattern that matches it)
	why      string            // where action comes from, when not explicit
}

// stateOf returns what the tab knows of t: entry is the server's entry
// (nil: not known), held its tools held for review.
func stateOf(t toolInfo, entry *config.Server, held map[string]hostapi.HeldTool) toolState {
	var ts toolState
	if h, ok := held[t.Name]; ok {
		ts.held = &h
	}
	if entry == nil {
		ts.action = config.PolicyAllow
		return ts
	}
	ts.hidden = entry.Tools != nil && !entry.Tools.Allows(t.Name)
	ts.action, ts.explicit = entry.Policy.Action(t.Name)
	switch {
	case ts.explicit:
	case ts.action != "":
		ts.why = "The server's default policy."
	case t.Annotations != nil && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint && !t.Annotations.ReadOnlyHint:
		// approvals.askDestructive, on unless the file turns it off.
		ts.action, ts.why = config.PolicyAsk, "It says it is destructive: asked first unless a policy names it."
	default:
		ts.action, ts.why = config.PolicyAllow, "The default: no policy names it."
	}
	return ts
}

// marks are the words after a tool's name in the list: "held for
// review", "hidden from apps", "asks first", "denied".
func (ts toolState) marks() []string {
	var m []string
	if ts.held != nil {
		m = append(m, "held for review")
	}
	if ts.hidden {
		m = append(m, "hidden from apps")
	}
	if len(m) > 0 {
		return m // apps cannot call it now: its policy is in its panel
	}
	switch ts.action {
	case config.PolicyAsk:
		m = append(m, "asks first")
	case config.PolicyDeny:
		m = append(m, "denied")
	}
	return m
}

// listLabel is a tool's button in the list.
func (ts toolState) listLabel(name string) string {
	if m := ts.marks(); len(m) > 0 {
		return name + " (" + strings.Join(m, ", ") + ")"
	}
	return name
}

// heldText says why a held tool is hidden from apps.
func heldText(h *hostapi.HeldTool) string {
	what := "its definition changed since you accepted it"
	if h.State == hostapi.TrustHeldNew {
		what = "it is new on this server"
	}
	return fmt.Sprintf("Held for review: %s, so AI apps do not see it until you accept it. Try it stays off until then: its description is not accepted yet.", what)
}

// hiddenText says why the filter hides a tool.
const hiddenText = "Hidden from AI apps: the server's tool filter (Settings, Tools in AI apps) leaves it out."

// statusBlock is the part of a tool's panel above its definition: its
// marks in words, the review button of a held tool, and its policy.
func (p *tryPanel) statusBlock() fyne.CanvasObject {
	ts := p.state
	var objs []fyne.CanvasObject
	if ts.held != nil {
		l := widget.NewLabel(heldText(ts.held))
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.WarningImportance
		p.heldNote = l
		p.review = widget.NewButtonWithIcon("Review", theme.WarningIcon(), func() { p.v.w.openReview(p.v.server) })
		objs = append(objs, l, container.NewHBox(p.review))
	}
	if ts.hidden {
		l := widget.NewLabel(hiddenText)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.WarningImportance
		objs = append(objs, l)
	}
	if p.v.entry != nil {
		labels := make([]string, len(policyOrder))
		for i, a := range policyOrder {
			labels[i] = policyLabels[a]
		}
		p.policy = widget.NewSelect(labels, nil)
		p.policy.SetSelected(policyLabels[ts.action])
		hint := "Set for this tool."
		if !ts.explicit {
			hint = ts.why
		}
		p.policyHint = hintLabel(hint)
		p.policy.OnChanged = func(label string) { p.v.setPolicy(p.tool.Name, policyAction(label)) }
		objs = append(objs, formGrid(widget.NewLabel("Calls from AI apps"), container.NewVBox(p.policy, p.policyHint)))
	}
	if len(objs) == 0 {
		return nil
	}
	return container.NewVBox(objs...)
}

// gateTry disables Call for a tool that apps do not see: one held for
// review until it is reviewed, one the filter hides until the user ticks
// that they mean it.
func (p *tryPanel) gateTry() fyne.CanvasObject {
	switch {
	case p.state.held != nil:
		p.call.Disable()
		p.gate = hintLabel("Review the tool first: a definition not yet accepted is not called from here.")
		return p.gate
	case p.state.hidden:
		p.call.Disable()
		p.anyway = widget.NewCheck("Call it here although AI apps do not see it", func(on bool) {
			if on {
				p.call.Enable()
			} else {
				p.call.Disable()
			}
		})
		return p.anyway
	}
	return nil
}

// setPolicy sets what a call of the tool from an AI app does, through the
// host: the server's entry with the tool's policy changed (the rest of
// the policy kept).
func (v *toolsView) setPolicy(tool, action string) {
	if action == "" {
		return
	}
	v.w.setStatus("Saving the policy of "+tool+"…", false)
	v.w.call(func(ctx context.Context) error {
		raw, err := v.w.live.GetServer(ctx, v.server)
		if err != nil {
			return err
		}
		s, err := config.ParseServer(v.server, raw)
		if err != nil {
			return err
		}
		if err := s.SetToolPolicy(tool, action); err != nil {
			return fmt.Errorf("the policy of %s: %w", tool, err)
		}
		return v.w.live.PutServer(ctx, v.server, marshal(s), false)
	}, func(err error) {
		if err != nil {
			v.w.setStatus(err.Error(), true)
			return
		}
		what := map[string]string{config.PolicyAllow: "go through", config.PolicyAsk: "ask you first", config.PolicyDeny: "are refused"}[action]
		v.w.setStatus(fmt.Sprintf("Saved: AI apps' calls of %s %s.", tool, what), false)
		v.fetch()
	})
}

// mayCall reports whether Call may be enabled: not for a held tool, and
// for a hidden one once the user ticked that they mean it.
func (p *tryPanel) mayCall() bool {
	switch {
	case p.state.held != nil:
		return false
	case p.state.hidden:
		return p.anyway != nil && p.anyway.Checked
	}
	return true
}

// sameState reports whether the tab would say the same of a tool.
func sameState(a, b toolState) bool {
	return a.hidden == b.hidden && (a.held == nil) == (b.held == nil) && a.action == b.action && a.explicit == b.explicit && a.why == b.why
}
