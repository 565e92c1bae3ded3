package registry

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// snapshotGz is the snapshot built into the program: gen/snapshot writes
// it (docs/registry.md says from what, and how to make it again).
//
//go:embed snapshot.json.gz
var snapshotGz []byte

// Snapshot is the content of snapshot.json.gz.
type Snapshot struct {
	Generated string   `json:"generated"` // when gen/snapshot ran (RFC 3339)
	Sources   []string `json:"sources"`   // what the entries were made from
	Official  []Entry  `json:"official"`  // the official registry's entries: its index before the first sync
	Catalog   []Entry  `json:"catalog"`   // Switchboard's own catalog of templates, as server.json
}

// CatalogRegistry is the Registry of the catalog's entries: Switchboard's
// own reviewed templates, searched beside every registry.
const CatalogRegistry = "catalog"

var snapshot = sync.OnceValues(func() (*Snapshot, error) {
	zr, err := gzip.NewReader(bytes.NewReader(snapshotGz))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	for i := range s.Catalog {
		s.Catalog[i].Registry = CatalogRegistry
	}
	return &s, nil
})

// SnapshotEntries are the official registry's entries of the built-in
// snapshot (a copy).
func SnapshotEntries() []Entry {
	s, err := snapshot()
	if err != nil {
		return nil
	}
	return slices.Clone(s.Official)
}

// CatalogEntries are the catalog's templates as entries (a copy).
func CatalogEntries() []Entry {
	s, err := snapshot()
	if err != nil {
		return nil
	}
	return slices.Clone(s.Catalog)
}
