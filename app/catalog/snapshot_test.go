package catalog

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/app/registry"
)

// TestSnapshotHasTheCatalog: the registry snapshot built into the program
// (app/registry/snapshot.json.gz) holds every template, at its pinned
// package and version, so that 'switchboard registry search' finds the
// catalog as the window shows it. A template added or re-pinned without
// regenerating the snapshot fails here (docs/registry.md says how).
func TestSnapshotHasTheCatalog(t *testing.T) {
	byName := map[string]registry.Entry{}
	for _, e := range registry.CatalogEntries() {
		byName[e.Server.Name] = e
	}
	all := All()
	for _, s := range all {
		e, ok := byName[registry.CatalogRegistry+"/"+s.Name]
		switch {
		case !ok:
			t.Errorf("the template %s is not in the snapshot: regenerate it (go run ./app/registry/gen/snapshot, docs/registry.md)", s.Name)
		case len(e.Server.Packages) != 1 || e.Server.Packages[0].Identifier != s.Package || e.Server.Packages[0].Version != s.Version || e.Server.Packages[0].RegistryType != string(s.Registry):
			t.Errorf("the snapshot has %s as %+v, the catalog %s %s@%s: regenerate it (docs/registry.md)", s.Name, e.Server.Packages, s.Registry, s.Package, s.Version)
		}
	}
	if len(byName) != len(all) {
		t.Errorf("the snapshot has %d catalog entries, the catalog %d templates: regenerate it (docs/registry.md)", len(byName), len(all))
	}
}
