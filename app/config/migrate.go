package config

import "fmt"

// CurrentVersion is the version of the file this package writes.
const CurrentVersion = 1

// document is a file on its way through the migrations: its top-level keys
// as written, and the version they are in.
type document struct {
	version int
	members []member
}

// A migration turns a document of version to-1 into version to. Each works
// on the raw members, not on the current types, so that old steps keep
// working when the types change.
type migration struct {
	to    int
	apply func(*document) error
}

// migrations are applied in order to documents older than their target.
// Add a step (and a fixture testdata/migrate/vN.json) whenever the meaning
// of a key changes; never edit a released step.
var migrations = []migration{
	{1, migrateToV1},
}

// migrateToV1: version 0 is a file without "version" (such as a copy of
// Claude Desktop's file). Its mcpServers already has the shape of version 1,
// so only the version is added (by Marshal, which writes CurrentVersion).
func migrateToV1(d *document) error { return nil }

func migrate(d *document) error {
	for _, m := range migrations {
		if d.version >= m.to {
			continue
		}
		if err := m.apply(d); err != nil {
			return fmt.Errorf("migrating the file from version %d to %d: %w", d.version, m.to, err)
		}
		d.version = m.to
	}
	return nil
}
