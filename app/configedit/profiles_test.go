package configedit

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// TestProfileRootsAndSampling: a profile's roots and sampling (issue 30
// §2) survive an edit through the API's entry (what 'profiles set' and
// the window send back), and a root that is not an absolute path is
// refused with the profile unsaved.
func TestProfileRootsAndSampling(t *testing.T) {
	f := config.New()
	if err := f.SetProfile("b", &config.Profile{Roots: []string{"/srv/b", `C:\work`}, Sampling: "claude-ai"}); err != nil {
		t.Fatal(err)
	}
	e := EntryOf(f.Profile("b"))
	e.ToolMode = config.ToolModeSearch // an edit of another field
	if err := PutProfile(f, "b", e); err != nil {
		t.Fatal(err)
	}
	p := f.Profile("b")
	if !slices.Equal(p.Roots, []string{"/srv/b", `C:\work`}) || p.Sampling != "claude-ai" || p.ToolMode != config.ToolModeSearch || !p.Valid() {
		t.Errorf("after the edit: %+v (problems %v)", p, p.Problems())
	}
	e.Roots = []string{"projects"}
	err := PutProfile(f, "b", e)
	if err == nil || !strings.Contains(err.Error(), `"projects" is not an absolute path`) {
		t.Errorf("a relative root: %v", err)
	}
	if p := f.Profile("b"); !slices.Equal(p.Roots, []string{"/srv/b", `C:\work`}) {
		t.Errorf("a refused edit changed the profile: %+v", p)
	}
}
