package stdio

import (
	"slices"
	"strings"
	"testing"
)

// A crash that ends with a usage text: the error shows the lines that say
// what went wrong, not the usage footer.
func TestCloseErrorShowsErrorLines(t *testing.T) {
	stderr := []string{
		"starting server v1.2",
		"Error: EADDRINUSE: address already in use :::3000",
		"    at Server.listen (node:net:1234)",
		"fatal: cannot continue",
		"",
		"Usage: server [options]",
		"  --port N   the port",
		"Run 'server --help' for more.",
	}
	e := &CloseError{Server: "web", Reason: ReasonExited, Stderr: stderr}
	msg := e.Error()
	want := "; stderr, the last lines that look like errors: Error: EADDRINUSE: address already in use :::3000 | fatal: cannot continue"
	if !strings.HasSuffix(msg, want) {
		t.Fatalf("Error() = %q\nwant it to end with %q", msg, want)
	}
	if strings.Contains(msg, "Run 'server --help'") {
		t.Errorf("the usage footer is in the error: %q", msg)
	}

	// At most 3, the last ones, in order.
	got := ErrorLines([]string{"error 1", "error 2", "ok", "error 3", "error 4"}, 3)
	if !slices.Equal(got, []string{"error 2", "error 3", "error 4"}) {
		t.Errorf("ErrorLines = %q", got)
	}
	// None looks like an error: the last non-blank line, as before.
	e.Stderr = []string{"listening", "bye", ""}
	if msg := e.Error(); !strings.HasSuffix(msg, "; last stderr: bye") {
		t.Errorf("no error line: %q", msg)
	}
	// The last line is the error: the short form.
	e.Stderr = []string{"hello", "cannot open the database"}
	if msg := e.Error(); !strings.HasSuffix(msg, "; last stderr: cannot open the database") {
		t.Errorf("last line is the error: %q", msg)
	}
	// A huge line is clipped.
	e.Stderr = []string{"error: " + strings.Repeat("x", 5000)}
	if msg := e.Error(); len(msg) > 400 || !strings.HasSuffix(msg, "…") {
		t.Errorf("a 5000-byte line is not clipped: %d bytes", len(msg))
	}
}
