package appicon

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestIcons(t *testing.T) {
	for _, c := range []struct {
		name string
		size int
		data []byte
	}{{Icon.Name(), 512, Icon.Content()}, {Small.Name(), 64, Small.Content()}} {
		cfg, err := png.DecodeConfig(bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.Width != c.size || cfg.Height != c.size {
			t.Errorf("%s is %dx%d, want %dx%d", c.name, cfg.Width, cfg.Height, c.size, c.size)
		}
	}
}

// The embedded copies are the packaging's own pictures (gen.go writes both).
func TestSameAsPackaging(t *testing.T) {
	for file, data := range map[string][]byte{
		"switchboard-512.png": Icon.Content(),
		"switchboard-64.png":  Small.Content(),
	} {
		want, err := os.ReadFile(filepath.Join("..", "..", "packaging", "icons", file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("ui/appicon's copy of %s differs from packaging/icons: run go run packaging/icons/gen.go", file)
		}
	}
}
