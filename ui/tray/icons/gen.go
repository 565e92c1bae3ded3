//go:build ignore

// gen draws the tray's four health icons: a switchboard (a dark panel with
// a light rim, two columns of jacks and a patch cord) with a status dot.
// The dark panel and the light rim keep the glyph visible on dark and on
// light panels alike. Run it from this directory: go run gen.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const (
	size = 64 // pixels; the tray scales it down
	ss   = 4  // subsamples per pixel side (anti-aliasing)
)

var (
	rim   = color.NRGBA{0xEC, 0xEF, 0xF1, 0xFF}
	panel = color.NRGBA{0x26, 0x32, 0x38, 0xFF}
	jack  = color.NRGBA{0xB0, 0xBE, 0xC5, 0xFF}
	cord  = color.NRGBA{0x4F, 0xC3, 0xF7, 0xFF}
	ring  = color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
)

// The dot of each level: filled, except "none", a grey ring.
var dots = []struct {
	file   string
	fill   color.NRGBA
	hollow bool
}{
	{"running.png", color.NRGBA{0x2E, 0xB8, 0x4B, 0xFF}, false},
	{"starting.png", color.NRGBA{0xFF, 0xB3, 0x00, 0xFF}, false},
	{"failed.png", color.NRGBA{0xE5, 0x39, 0x35, 0xFF}, false},
	{"none.png", color.NRGBA{0x9E, 0x9E, 0x9E, 0xFF}, true},
}

func main() {
	for _, d := range dots {
		img := draw(d.fill, d.hollow)
		f, err := os.Create(d.file)
		if err != nil {
			log.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

// roundRect reports whether (x, y) is inside the rectangle [x0,x1]×[y0,y1]
// with corners of radius r.
func roundRect(x, y, x0, y0, x1, y1, r float64) bool {
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
}

func circle(x, y, cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

// segment reports whether (x, y) is within w/2 of the segment a-b.
func segment(x, y, ax, ay, bx, by, w float64) bool {
	dx, dy := bx-ax, by-ay
	t := ((x-ax)*dx + (y-ay)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	px, py := ax+t*dx-x, ay+t*dy-y
	return px*px+py*py <= w*w/4
}

// colourAt is the colour of the point (x, y), painted back to front.
func colourAt(x, y float64, fill color.NRGBA, hollow bool) (color.NRGBA, bool) {
	var c color.NRGBA
	in := false
	paint := func(cond bool, col color.NRGBA) {
		if cond {
			c, in = col, true
		}
	}
	paint(roundRect(x, y, 2, 6, 54, 58, 9), rim)
	paint(roundRect(x, y, 5, 9, 51, 55, 6.5), panel)
	for _, jy := range []float64{19, 32, 45} {
		paint(circle(x, y, 16, jy, 4.2), jack)
		paint(circle(x, y, 40, jy, 4.2), jack)
	}
	paint(segment(x, y, 16, 19, 40, 32, 3.2), cord)
	paint(segment(x, y, 16, 45, 40, 19, 3.2), cord)
	// The status dot, lower right, with a white ring that separates it from
	// the glyph and from any panel colour.
	const dx, dy = 47, 47
	paint(circle(x, y, dx, dy, 16), ring)
	if hollow {
		paint(circle(x, y, dx, dy, 12.5), fill)
		paint(circle(x, y, dx, dy, 7), ring)
	} else {
		paint(circle(x, y, dx, dy, 12.5), fill)
	}
	return c, in
}

func draw(fill color.NRGBA, hollow bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := float64(px) + (float64(sx)+0.5)/ss
					y := float64(py) + (float64(sy)+0.5)/ss
					if c, ok := colourAt(x, y, fill, hollow); ok {
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
