package window

// The Profiles place and the AI apps' profile picker against a real host,
// and their golden markup over fixed data.

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// openProfilesPlace opens the place and waits for its list.
func (h *harness) openProfilesPlace() *profilesView {
	h.t.Helper()
	test.Tap(h.w.nav[placeProfiles])
	v := h.w.profilesV
	if v == nil {
		h.t.Fatal("the Profiles button did not open the place")
	}
	h.until("the profiles' list", func() bool { return v.head.Text == "" || strings.HasPrefix(v.head.Text, "No profile") })
	return v
}

func (h *harness) profiles() []hostapi.ProfileInfo {
	h.t.Helper()
	var list []hostapi.ProfileInfo
	if err := h.call(func(ctx context.Context, c *client.Live) (err error) {
		list, err = c.Profiles(ctx)
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
	return list
}

// TestProfilesPlace adds a profile with the editor, refuses a malformed
// pattern, edits and renames it, shows a missing server in plain words,
// and removes it: every change through the host, into the config file.
func TestProfilesPlace(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry(), "beta": helperEntry()})
	h.row("alpha")
	h.row("beta")
	v := h.openProfilesPlace()
	if !strings.HasPrefix(v.head.Text, "No profile yet") {
		t.Errorf("no profile: %q", v.head.Text)
	}

	test.Tap(v.newB)
	e := v.editor
	if e == nil {
		t.Fatal("New profile… opened no editor")
	}
	if !e.all.Checked || !e.servers.Disabled() || e.mode.Selected != modeAllLabel {
		t.Errorf("a new profile's defaults: every server %v, list disabled %v, mode %q", e.all.Checked, e.servers.Disabled(), e.mode.Selected)
	}
	e.name.SetText("coding")
	e.all.SetChecked(false)
	e.servers.SetSelected([]string{"alpha"})
	e.deny.SetText("alpha__write_*, [x")
	test.Tap(e.save)
	if !strings.Contains(e.err.Text, `"[x" is not a tool name pattern`) {
		t.Fatalf("a malformed pattern: %q", e.err.Text)
	}
	if len(h.profiles()) != 0 {
		t.Fatal("a refused profile was saved")
	}
	e.deny.SetText("alpha__write_*")
	e.mode.SetSelected(modeSearchLabel)
	test.Tap(e.save)
	h.until("the profile saved", func() bool { return h.w.profilesV != nil && h.w.profilesV.cards["coding"] != nil })
	want := hostapi.ProfileEntry{Servers: []string{"alpha"}, Deny: []string{"alpha__write_*"}, ToolMode: config.ToolModeSearch}
	if got := h.profiles(); len(got) != 1 || got[0].Name != "coding" || !reflect.DeepEqual(got[0].ProfileEntry, want) {
		t.Fatalf("saved %+v; want %+v", got, want)
	}
	f, err := config.Load(h.opts.ConfigPath)
	if err != nil || f.Profile("coding") == nil {
		t.Fatalf("the config file has no profile coding: %v", err)
	}

	// A profile that names a server Switchboard lacks: said in plain words.
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		return c.PutProfile(ctx, "later", hostapi.ProfileEntry{Servers: []string{"beta", "gamma"}})
	}); err != nil {
		t.Fatal(err)
	}
	v = h.w.profilesV
	v.load()
	h.until("the second profile", func() bool { return h.w.profilesV.cards["later"] != nil })
	c := h.w.profilesV.cards["later"]
	if !c.problems.Visible() || !strings.Contains(c.problems.Text, `"gamma" is not one of Switchboard's servers`) {
		t.Errorf("the missing server: %q", c.problems.Text)
	}

	// Edit and rename coding.
	pv := h.w.profilesV // the editor opens over the place, which it leaves
	test.Tap(pv.cards["coding"].edit)
	e = pv.editor
	if e.name.Text != "coding" || e.all.Checked || !slices.Equal(e.servers.Selected, []string{"alpha"}) || e.deny.Text != "alpha__write_*" || e.mode.Selected != modeSearchLabel {
		t.Fatalf("the editor of coding: name %q, all %v, servers %v, deny %q, mode %q", e.name.Text, e.all.Checked, e.servers.Selected, e.deny.Text, e.mode.Selected)
	}
	e.name.SetText("dev")
	e.all.SetChecked(true)
	test.Tap(e.save)
	h.until("the renamed profile", func() bool { return h.w.profilesV != nil && h.w.profilesV.cards["dev"] != nil })
	got := h.profiles()
	if names := profileNamesOf(got); !slices.Equal(names, []string{"dev", "later"}) || got[0].Servers != nil {
		t.Errorf("after the rename: %+v", got)
	}

	// Remove.
	test.Tap(h.w.profilesV.cards["later"].remove)
	h.w.profilesV.confirm.Confirm()
	h.until("the profile removed", func() bool { return len(h.profiles()) == 1 })
}

// TestAppsProfilePicker: Change… on a connected app picks a profile, and
// the entry the app's file gets runs the bridge with --profile.
func TestAppsProfilePicker(t *testing.T) {
	h := startApps(t, map[string]any{"alpha": helperEntry()}, t.TempDir())
	h.row("alpha")
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		return c.PutProfile(ctx, "coding", hostapi.ProfileEntry{Servers: []string{"alpha"}})
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "Claude", "claude_desktop_config.json")
	writeFixture(t, path, must(os.ReadFile("testdata/claude_desktop_config.json")), 0o600)
	v := h.openApps()
	r := v.rows["claude-desktop"]
	test.Tap(r.connect)
	c := v.change
	if c == nil || c.profile == nil {
		t.Fatal("Connect shows no profile picker")
	}
	h.until("the host's profiles in the picker", func() bool { return slices.Contains(c.profile.Options, "coding") })
	if c.profile.Selected != noProfile || strings.Contains(c.diffText, "--profile") {
		t.Errorf("the picker's first choice: %q\n%s", c.profile.Selected, c.diffText)
	}
	c.profile.SetSelected("coding")
	if !strings.Contains(c.diffText, `"--profile"`) || !strings.Contains(c.diffText, `"coding"`) {
		t.Fatalf("the change with a profile:\n%s", c.diffText)
	}
	test.Tap(c.ok)
	h.until("Claude Desktop connected", func() bool {
		r := v.rows["claude-desktop"]
		return v.change == nil && r != nil && r.conn.Text == "Connected"
	})
	servers := jsonObject(t, must(os.ReadFile(path)))["mcpServers"].(map[string]any)
	entry := servers[aiapps.EntryName].(map[string]any)
	if !reflect.DeepEqual(entry["args"], []any{"bridge", "--profile", "coding"}) {
		t.Errorf("the entry's args: %v", entry["args"])
	}
	r = v.rows["claude-desktop"]
	if !strings.Contains(r.through.Text, "Profile coding") {
		t.Errorf("the row does not name the profile: %q", r.through.Text)
	}
	// Change… again: the picker shows the entry's profile.
	test.Tap(r.connect)
	if v.change.profile.Selected != "coding" {
		t.Errorf("Change… of an app with a profile: the picker shows %q", v.change.profile.Selected)
	}
	test.Tap(v.change.cancel)
}

// TestGoldenProfiles is the Profiles place over fixed profiles (one with
// a missing server and one that cannot be used), and the editor.
func TestGoldenProfiles(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showPlace(placeProfiles)
	v := w.profilesV
	v.show([]hostapi.ProfileInfo{
		{Name: "coding", ProfileEntry: hostapi.ProfileEntry{Servers: []string{"everything", "files", "git"}, Deny: []string{"files__write_*"}},
			Missing: []string{"git"}, Problems: []hostapi.Problem{{Key: "profiles.coding.servers", Warning: true, Message: `profile "coding" names the server "git"`}}},
		{Name: "lean", ProfileEntry: hostapi.ProfileEntry{Allow: []string{"*__read_*", "*__list_*"}, ToolMode: config.ToolModeSearch}},
		{Name: "broken", ProfileEntry: hostapi.ProfileEntry{Servers: []string{"files"}},
			Problems: []hostapi.Problem{{Key: "profiles.broken.toolMode", Message: `profiles.broken.toolMode: "fast" is not a tool mode: write "all" (every tool) or "search" (find_tools and call_tool)`}}},
	})
	assertMarkup(t, w, "profiles.xml")
	v.openEditor(&v.profiles[0])
	assertMarkup(t, w, "profile-edit.xml")
}

// TestProfileNoteInItsPlace: a profile that names a server the config
// lacks is a note (hostapi.Problem.Warning: it stops nothing), not a
// config problem: no red banner above every place; the note is said in
// the Profiles place, on the profile's card, in the warning colour; a
// problem of the file that is not a note still shows in the banner (issue
// 27 §9).
func TestProfileNoteInItsPlace(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry()})
	h.row("alpha")
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		return c.PutProfile(ctx, "research", hostapi.ProfileEntry{Servers: []string{"alpha", "gone"}})
	}); err != nil {
		t.Fatal(err)
	}
	h.until("the host's note on the profile", func() bool {
		for _, p := range h.w.snap.Info.Config.Problems {
			if p.Warning && strings.Contains(p.Key, "research") {
				return true
			}
		}
		return false
	})
	if h.w.cfgBanner.Visible() {
		t.Errorf("a note shows as a config problem above every place: %q", h.w.cfgBanner.Text)
	}
	v := h.openProfilesPlace()
	h.until("the research card", func() bool { return v.cards["research"] != nil })
	c := v.cards["research"]
	if !c.problems.Visible() || !strings.Contains(c.problems.Text, `"gone" is not one of Switchboard's servers`) || c.problems.Importance != widget.WarningImportance {
		t.Errorf("the note on the card: %q (shown %v, importance %v)", c.problems.Text, c.problems.Visible(), c.problems.Importance)
	}
	if h.w.cfgBanner.Visible() {
		t.Errorf("the Profiles place shows the banner too: %q", h.w.cfgBanner.Text)
	}
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, h.w, "profiles-note", size, func() {})
	}
}
