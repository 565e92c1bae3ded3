//go:build ignore

// gen draws Switchboard's application icon: a patch panel (a dark rounded
// square with a light rim, two columns of three jacks, two patch cords), the
// tray icons' glyph (ui/tray/icons) without their status dot, drawn for
// every size on its own with 4x4 subsamples per pixel so that the small
// sizes stay crisp. It writes the hicolor PNGs (switchboard-SIZE.png), a
// Windows .ico (PNG entries, Vista and later) for the MSI and the .exe,
// and the 512-pixel copy that ui/appicon embeds in the binary.
//
// Run it from the repository root: go run packaging/icons/gen.go
package main

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

// Sizes are the hicolor sizes installed on Linux; the .ico carries the
// ones Windows asks for.
var (
	sizes    = []int{16, 24, 32, 48, 64, 128, 256, 512}
	icoSizes = []int{16, 24, 32, 48, 64, 256}
)

const ss = 4 // subsamples per pixel side

var (
	rim   = color.NRGBA{0xEC, 0xEF, 0xF1, 0xFF}
	panel = color.NRGBA{0x26, 0x32, 0x38, 0xFF}
	jack  = color.NRGBA{0xB0, 0xBE, 0xC5, 0xFF}
	hole  = color.NRGBA{0x10, 0x17, 0x1A, 0xFF}
	cordA = color.NRGBA{0x4F, 0xC3, 0xF7, 0xFF}
	cordB = color.NRGBA{0xFF, 0xB3, 0x00, 0xFF}
)

// The design lives on a 64-unit square.
func colourAt(x, y float64, detail bool) (color.NRGBA, bool) {
	var c color.NRGBA
	in := false
	paint := func(cond bool, col color.NRGBA) {
		if cond {
			c, in = col, true
		}
	}
	paint(roundRect(x, y, 2, 2, 62, 62, 12), rim)
	paint(roundRect(x, y, 5.5, 5.5, 58.5, 58.5, 9), panel)
	for _, jy := range []float64{17, 32, 47} {
		for _, jx := range []float64{19, 45} {
			paint(circle(x, y, jx, jy, 5.2), jack)
			if detail {
				paint(circle(x, y, jx, jy, 2.2), hole)
			}
		}
	}
	// Each cord ends in a plug that covers its jack's hole.
	paint(segment(x, y, 19, 17, 45, 32, 3.8), cordA)
	paint(circle(x, y, 19, 17, 3.2) || circle(x, y, 45, 32, 3.2), cordA)
	paint(segment(x, y, 19, 47, 45, 17, 3.8), cordB)
	paint(circle(x, y, 19, 47, 3.2) || circle(x, y, 45, 17, 3.2), cordB)
	return c, in
}

func roundRect(x, y, x0, y0, x1, y1, r float64) bool {
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
}

func circle(x, y, cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

func segment(x, y, ax, ay, bx, by, w float64) bool {
	dx, dy := bx-ax, by-ay
	t := ((x-ax)*dx + (y-ay)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	px, py := ax+t*dx-x, ay+t*dy-y
	return px*px+py*py <= w*w/4
}

func draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	scale := 64 / float64(size)
	detail := size >= 32 // the jacks' holes vanish into mush below that
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) * scale
					y := (float64(py) + (float64(sy)+0.5)/ss) * scale
					if c, ok := colourAt(x, y, detail); ok {
						r += float64(c.R)
						g += float64(c.G)
						b += float64(c.B)
						a++
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r / a), G: uint8(g / a), B: uint8(b / a),
				A: uint8(math.Round(a / (ss * ss) * 255)),
			})
		}
	}
	return img
}

func encode(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

// ico writes an icon file whose entries are PNGs (accepted since Vista).
func ico(pngs map[int][]byte) []byte {
	var buf bytes.Buffer
	w := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
	w(uint16(0))
	w(uint16(1)) // icon
	w(uint16(len(icoSizes)))
	offset := 6 + 16*len(icoSizes)
	for _, s := range icoSizes {
		dim := uint8(s)
		if s >= 256 {
			dim = 0 // 0 means 256
		}
		w(dim)
		w(dim)
		w(uint8(0))  // palette
		w(uint8(0))  // reserved
		w(uint16(1)) // planes
		w(uint16(32))
		w(uint32(len(pngs[s])))
		w(uint32(offset))
		offset += len(pngs[s])
	}
	for _, s := range icoSizes {
		buf.Write(pngs[s])
	}
	return buf.Bytes()
}

func write(path string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	pngs := map[int][]byte{}
	for _, s := range sizes {
		pngs[s] = encode(draw(s))
		write(filepath.Join("packaging", "icons", "switchboard-"+itoa(s)+".png"), pngs[s])
	}
	write(filepath.Join("packaging", "icons", "switchboard.ico"), ico(pngs))
	write(filepath.Join("ui", "appicon", "switchboard.png"), pngs[512])
	write(filepath.Join("ui", "appicon", "switchboard-64.png"), pngs[64])
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
