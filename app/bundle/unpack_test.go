package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one member of a zip a test builds.
type entry struct {
	name  string
	body  string
	mode  fs.FileMode // through SetMode (Unix creator) when not zero
	attrs uint32      // raw external attributes, when not zero
	// declared, when not zero, is the uncompressed size the header
	// claims (a lie about body's size).
	declared uint64
}

const goodManifest = `{"manifest_version":"0.3","name":"demo","version":"1.0.0","description":"d","author":{"name":"a"},"server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js"]}}}`

// zipBytes builds a zip of the entries with archive/zip.
func zipBytes(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		if e.attrs != 0 {
			h.CreatorVersion = 0 // FAT: archive/zip ignores the Unix bits
			h.ExternalAttrs = e.attrs
		}
		if e.declared != 0 {
			var comp bytes.Buffer
			fw, _ := flate.NewWriter(&comp, flate.BestCompression)
			fw.Write([]byte(e.body))
			fw.Close()
			h.CRC32 = crc32.ChecksumIEEE([]byte(e.body))
			h.CompressedSize64 = uint64(comp.Len())
			h.UncompressedSize64 = e.declared
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(comp.Bytes())
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeZip(t *testing.T, entries []entry) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.mcpb")
	if err := os.WriteFile(p, zipBytes(t, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnpack: a good bundle lands in destDir with its files, its
// executable bit, and nothing beside it.
func TestUnpack(t *testing.T) {
	p := writeZip(t, []entry{
		{name: "manifest.json", body: goodManifest},
		{name: "server/", mode: fs.ModeDir | 0o755},
		{name: "server/index.js", body: "console.log(1)"},
		{name: "bin/tool", body: "#!/bin/sh\n", mode: 0o755},
	})
	store := t.TempDir()
	dest := filepath.Join(store, "demo", "1.0.0")
	if err := Unpack(p, dest, DefaultLimits); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dest, "server", "index.js"))
	if err != nil || string(b) != "console.log(1)" {
		t.Fatalf("server/index.js = %q, %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(dest, "bin", "tool")); err != nil || (st.Mode()&0o100 == 0 && os.PathSeparator == '/') {
		t.Fatalf("bin/tool: %v, %v", st, err)
	}
	left, _ := os.ReadDir(filepath.Join(store, "demo"))
	if len(left) != 1 || left[0].Name() != "1.0.0" {
		t.Fatalf("store holds %v, want only 1.0.0", left)
	}
	if err := Unpack(p, dest, DefaultLimits); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second unpack: %v, want already exists", err)
	}
}

// TestUnpackRefuses: each hostile bundle is refused with an error naming
// the entry and the reason, and leaves nothing in the store.
func TestUnpackRefuses(t *testing.T) {
	man := entry{name: "manifest.json", body: goodManifest}
	small := Limits{Total: 1000, PerFile: 600, Entries: 5}
	big := strings.Repeat("A", 700)
	cases := []struct {
		name    string
		entries []entry
		limits  Limits
		want    string
	}{
		{"zip-slip", []entry{man, {name: "../evil.sh", body: "x"}}, DefaultLimits, `"../evil.sh": the path climbs out`},
		{"zip-slip inside", []entry{man, {name: "server/../../evil", body: "x"}}, DefaultLimits, `"server/../../evil": the path climbs out`},
		{"absolute", []entry{man, {name: "/etc/passwd", body: "x"}}, DefaultLimits, `"/etc/passwd": absolute path`},
		{"volume", []entry{man, {name: "C:/Windows/evil.dll", body: "x"}}, DefaultLimits, `"C:/Windows/evil.dll": the name starts with a volume name`},
		{"backslash", []entry{man, {name: `..\evil`, body: "x"}}, DefaultLimits, `backslash`},
		{"symlink", []entry{man, {name: "link", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777}}, DefaultLimits, `"link": a symbolic link`},
		{"symlink bits, FAT creator", []entry{man, {name: "link2", body: "/etc", attrs: 0o120777 << 16}}, DefaultLimits, `"link2": a symbolic link`},
		{"device", []entry{man, {name: "dev", body: "", attrs: 0o020666 << 16}}, DefaultLimits, `"dev": not a regular file or folder`},
		{"fifo", []entry{man, {name: "fifo", body: "", mode: fs.ModeNamedPipe | 0o644}}, DefaultLimits, `"fifo": not a regular file or folder`},
		{"duplicate", []entry{man, {name: "a.js", body: "1"}, {name: "a.js", body: "2"}}, DefaultLimits, `"a.js": duplicates "a.js"`},
		{"duplicate by case", []entry{man, {name: "Server.js", body: "1"}, {name: "server.JS", body: "2"}}, DefaultLimits, `"server.JS": duplicates "Server.js"`},
		{"duplicate by normalization", []entry{man, {name: "caf\u00e9.js", body: "1"}, {name: "cafe\u0301.js", body: "2"}}, DefaultLimits, "duplicates"},
		{"too many entries", []entry{man, {name: "1"}, {name: "2"}, {name: "3"}, {name: "4"}, {name: "5"}}, small, "6 entries, more than the limit of 5"},
		{"file over per-file limit", []entry{man, {name: "big", body: big}}, small, `"big": declares 700 bytes, more than the per-file limit of 600`},
		{"header lies about size", []entry{man, {name: "bomb", body: strings.Repeat("B", 5000), declared: 10}}, small, `"bomb": its data does not match its header`},
		{"total over limit", []entry{man, {name: "a", body: big[:500]}, {name: "b", body: big[:500]}}, small, `"b": the bundle passes the total limit of 1000 bytes`},
		{"no manifest", []entry{{name: "x.js", body: "1"}}, DefaultLimits, "no manifest.json at the root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeZip(t, c.entries)
			store := t.TempDir()
			dest := filepath.Join(store, "demo", "1.0.0")
			err := Unpack(p, dest, c.limits)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Unpack = %v, want an error containing %q", err, c.want)
			}
			left, _ := os.ReadDir(filepath.Join(store, "demo"))
			if len(left) != 0 {
				t.Fatalf("a refused bundle left %v in the store", left)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(store), "evil.sh")); err == nil {
				t.Fatal("zip-slip wrote outside the store")
			}
		})
	}
}
