package table

import (
	"fmt"
	"strings"
	"testing"
)

func TestFlush(t *testing.T) {
	var out strings.Builder
	w := New(&out)
	fmt.Fprintln(w, "\tlong header\tb\t")
	fmt.Fprintln(w, "row one\t1\t22\t")
	fmt.Fprintln(w, "r\t333\t\t")
	w.Flush()
	want := "" +
		"         long header   b\n" +
		"row one            1  22\n" +
		"r                333\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	fmt.Fprintln(w, "x\ty")
	w.Flush()
	if out.String() != "x  y\n" {
		t.Errorf("after a Flush the widths start again: got %q", out.String())
	}
}
