package window

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/catalog"
)

// TestCatalogSearch types into the catalog's search box and picks a
// category, as a person does, and checks what the page lists.
func TestCatalogSearch(t *testing.T) {
	w, _ := goldenWindow(t)
	w.openCatalog()
	v := w.catalog
	if w.win.Canvas().Focused() != v.search {
		t.Error("the search box does not have the focus when the catalog opens")
	}
	if got := len(v.shown()); got != len(catalog.All()) {
		t.Errorf("with no search the catalog shows %d templates, not all %d", got, len(catalog.All()))
	}
	for _, c := range catalog.Categories() {
		if !slices.Contains(v.box.Objects, v.heads[c]) {
			t.Errorf("heading %q is not shown", c)
		}
	}

	test.Type(v.search, "FILESYS") // the name, in any case
	if got := v.shown(); !slices.Equal(got, []string{"filesystem"}) {
		t.Errorf("searching FILESYS shows %v", got)
	}
	if !slices.Contains(v.box.Objects, v.heads[catalog.Files]) || slices.Contains(v.box.Objects, v.heads[catalog.Web]) {
		t.Error("only the heading of a category with a match shows")
	}
	v.search.SetText("@upstash") // the package
	if got := v.shown(); !slices.Equal(got, []string{"context7"}) {
		t.Errorf("searching the package @upstash shows %v", got)
	}
	v.search.SetText("browser") // the description
	if got := v.shown(); !slices.Equal(got, []string{"chrome-devtools", "playwright"}) {
		t.Errorf("searching browser shows %v", got)
	}

	v.category.SetSelected(string(catalog.Web)) // narrows the search
	if got := v.shown(); !slices.Equal(got, []string{"playwright"}) {
		t.Errorf("browser in Web shows %v", got)
	}
	v.search.SetText("")
	for _, name := range v.shown() {
		if s, _ := catalog.Lookup(name); s.Category != catalog.Web {
			t.Errorf("the Web category shows %s (%s)", name, s.Category)
		}
	}
	if len(v.shown()) < 2 {
		t.Errorf("Web shows %v", v.shown())
	}

	v.search.SetText("nothing like this")
	if len(v.shown()) != 0 || !v.none.Visible() || !slices.Contains(v.box.Objects, fyne.CanvasObject(v.none)) ||
		!strings.Contains(v.none.Text, `No server in Web and search matches "nothing like this"`) {
		t.Errorf("no match: %v, %q", v.shown(), v.none.Text)
	}
	v.category.SetSelected(allCategories)
	if !strings.Contains(v.none.Text, "No server in the catalog matches") {
		t.Errorf("no match in the whole catalog: %q", v.none.Text)
	}

	// A template's Add opens it.
	v.search.SetText("time zone")
	if got := v.shown(); !slices.Equal(got, []string{"time"}) {
		t.Fatalf("searching time zone shows %v", got)
	}
	test.Tap(v.add["time"])
	if w.template == nil || w.template.tpl.Name != "time" {
		t.Error("Add did not open the time template")
	}
}
