package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The AI apps place's side of profiles: the picker of the Connect/Change
// dialog, which writes --profile NAME into the app's entry (through
// app/aiapps' Bridge, as 'switchboard clients connect --profile' does),
// and the profile an app's entry names, in its row.

// noProfile is the picker's first option: the entry names no profile.
const noProfile = "No profile (every tool of the servers checked above)"

// profilePick is the Connect/Change dialog's choice of profile.
type profilePick struct {
	sel       *widget.Select
	obj       fyne.CanvasObject
	onChanged func()
}

// name is the profile chosen, "" for none.
func (p *profilePick) name() string {
	if p.sel.Selected == noProfile {
		return ""
	}
	return p.sel.Selected
}

// profilePicker returns the picker with current (the entry's profile, ""
// for none) chosen; the host's profiles fill it in when they come.
func (v *appsView) profilePicker(current string) *profilePick {
	p := &profilePick{}
	opts := profileOptions(v.w.profileNames, current)
	p.sel = widget.NewSelect(opts, func(string) {
		if p.onChanged != nil {
			p.onChanged()
		}
	})
	if current == "" {
		p.sel.Selected = noProfile
	} else {
		p.sel.Selected = current
	}
	label := widget.NewLabel("Profile (the app sees only what it lets through; the Profiles page edits them):")
	label.Wrapping = fyne.TextWrapWord
	p.obj = container.NewVBox(label, p.sel)
	if v.w.snap.Connected {
		var list []hostapi.ProfileInfo
		v.w.call(func(ctx context.Context) (err error) {
			list, err = v.w.live.Profiles(ctx)
			return err
		}, func(err error) {
			if err != nil {
				return
			}
			v.w.setProfiles(list)
			p.sel.Options = profileOptions(v.w.profileNames, current)
			p.sel.Refresh()
		})
	}
	return p
}

// profileOptions are the picker's options: none, the host's profiles, and
// the entry's own if the host lacks it.
func profileOptions(names []string, current string) []string {
	opts := append([]string{noProfile}, names...)
	if current != "" && !slices.Contains(names, current) {
		opts = append(opts, current)
	}
	return opts
}

func profileNamesOf(list []hostapi.ProfileInfo) []string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return names
}

// loadProfiles fetches the host's profiles' names for the rows.
func (v *appsView) loadProfiles() {
	w := v.w
	var list []hostapi.ProfileInfo
	w.call(func(ctx context.Context) (err error) {
		list, err = w.live.Profiles(ctx)
		return err
	}, func(err error) {
		if err != nil || w.apps != v {
			return
		}
		w.setProfiles(list)
		v.stateChanged()
	})
}

// setProfiles keeps the host's profiles, as fetched.
func (w *Window) setProfiles(list []hostapi.ProfileInfo) {
	w.profiles = list
	w.profileNames = profileNamesOf(list)
}

// profileOf returns the host's profile of a name, and whether the host
// has it; known is false while the profiles are not fetched yet.
func (w *Window) profileOf(name string) (p hostapi.ProfileInfo, ok, known bool) {
	if w.profileNames == nil {
		return p, false, false
	}
	for _, p := range w.profiles {
		if p.Name == name {
			return p, true, true
		}
	}
	return p, false, true
}

// profileNote says, in an app's row, the profile its entry names, below
// the servers its --servers names.
func profileNote(name string, known []string) string {
	if known != nil && !slices.Contains(known, name) {
		return fmt.Sprintf("\nProfile %s, which Switchboard does not have: the app sees no tools until it is added (Profiles), or Change… picks another.", name)
	}
	return fmt.Sprintf("\nProfile %s: only what it lets through.", name)
}

// profileThrough says which servers an app reaches through the profile
// its entry names (and no --servers): the profile's servers, marked as
// mark marks them (every server: all), and whether its patterns let only
// some of their tools through.
func (r *appRow) profileThrough(name string, mark func([]string) string, all []string) string {
	p, ok, known := r.v.w.profileOf(name)
	switch {
	case !known:
		return "Profile " + name + ": only what it lets through."
	case !ok:
		return strings.TrimPrefix(profileNote(name, r.v.w.profileNames), "\n")
	}
	text := "Profile " + name + ": "
	switch {
	case p.Servers == nil && len(all) == 0:
		text += "every server (Switchboard has none yet)"
	case p.Servers == nil:
		text += "every server: " + mark(all)
	case len(p.Servers) == 0:
		text += "no server"
	default:
		text += mark(p.Servers)
	}
	if len(p.Allow) > 0 || len(p.Deny) > 0 {
		text += "; only the tools it lets through"
	}
	return text
}
