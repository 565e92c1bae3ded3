// Package table prints the benchmark harnesses' tables (bench/gateway,
// bench/host).
package table

import (
	"fmt"
	"io"
	"strings"
)

// Writer takes tab-separated lines that Flush prints with the first column
// left-aligned and the others right-aligned, two spaces apart. Trailing
// tabs (empty last cells) are dropped.
type Writer struct {
	out io.Writer
	buf strings.Builder
}

// New returns a Writer that prints to out.
func New(out io.Writer) *Writer { return &Writer{out: out} }

func (t *Writer) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush prints the lines written since the last Flush.
func (t *Writer) Flush() {
	var rows [][]string
	var w []int
	for line := range strings.Lines(t.buf.String()) {
		r := strings.Split(strings.TrimRight(line, "\t\n"), "\t")
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			w[i] = max(w[i], len([]rune(c)))
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", w[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(t.out, strings.TrimRight(b.String(), " "))
	}
	t.buf.Reset()
}
