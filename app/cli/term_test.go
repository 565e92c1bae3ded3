//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// hostileStderr is what the "hostile" helper writes before it exits: a
// window-title change, a line overwrite, a C1 CSI, then the real error
// and a usage footer, as a crashing server's stderr often ends.
const hostileStderr = "\x1b]0;pwned title\x07\x1b[2K\rfake: all good\n" +
	"\u009b31mred\n" +
	"Error: cannot open /nonexistent/db: no such file or directory\n" +
	"Usage: hostile [options]\n" +
	"Run 'hostile --help' for more.\n"

func init() {
	helpers["hostile"] = func() int {
		fmt.Fprint(os.Stderr, hostileStderr)
		return 3
	}
}

// TestE2EServerBytesEscaped: what a crashing server writes to stderr
// reaches `status` and `logs` with its control characters escaped, and
// `logs --json` exactly (as JSON escapes); the crash's error shows the
// line that says what went wrong, not the usage footer.
func TestE2EServerBytesEscaped(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.serve(t)
	sb.cli(t, sb.helperArgs("hostile", "hostile", "--stderr", "capture")...)
	sb.waitServer(t, "hostile", "crashed with its stderr captured", func(s hostapi.ServerStatus) bool {
		return s.State != "running" && s.State != "starting" && strings.Contains(s.LastError, "no such file")
	})

	human := sb.cli(t, "status")
	if strings.ContainsAny(human, "\x1b\x07\r\u009b") {
		t.Fatalf("status printed raw control characters: %q", human)
	}
	for _, want := range []string{`hostile: `, "Error: cannot open /nonexistent/db: no such file or directory"} {
		if !strings.Contains(human, want) {
			t.Errorf("status lacks %q:\n%s", want, human)
		}
	}
	if strings.Contains(human, "Run 'hostile --help'") {
		t.Errorf("status shows the usage footer as the error:\n%s", human)
	}

	logs := sb.cli(t, "logs", "hostile")
	if strings.ContainsAny(logs, "\x1b\x07\r\u009b") {
		t.Fatalf("logs printed raw control characters: %q", logs)
	}
	for _, want := range []string{`\e]0;pwned title\x07\e[2K\rfake: all good`, `\u009b31mred`, "Usage: hostile [options]"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lacks %q:\n%s", want, logs)
		}
	}

	raw := sb.cli(t, "logs", "hostile", "--json")
	if strings.ContainsAny(raw, "\x1b\x07\r\u009b") {
		t.Fatalf("logs --json printed raw control characters: %q", raw)
	}
	var entries []struct {
		Time time.Time `json:"time"`
		Line string    `json:"line"`
	}
	if err := json.Unmarshal([]byte(raw), &entries); err != nil {
		t.Fatalf("logs --json: %v\n%s", err, raw)
	}
	var lines []string
	for _, e := range entries {
		if e.Time.IsZero() {
			t.Errorf("logs --json: line %q has no time", e.Line)
		}
		lines = append(lines, e.Line)
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "\x1b]0;pwned title\x07\x1b[2K\rfake: all good\n\u009b31mred") {
		t.Errorf("logs --json does not hold the exact bytes: %q", lines)
	}

	st := sb.cli(t, "status", "--json")
	if strings.ContainsAny(st, "\x1b\x07\r\u009b") {
		t.Fatalf("status --json printed raw control characters: %q", st)
	}
}

// TestE2EFreshHostOnBrokenFile: a host started on a file it cannot use
// has no last good config: status says so, and that nothing runs.
func TestE2EFreshHostOnBrokenFile(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	if err := os.MkdirAll(strings.TrimSuffix(sb.configPath(), "/config.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeRename(t, sb.configPath(), []byte("{\n  \"version\": 1,\n  \"mcpServers\": {\n    \"x\": {\"command\": \n"))
	sb.serve(t)
	human := sb.cli(t, "status")
	if strings.Contains(human, "last good config is in force") {
		t.Errorf("status claims a last good config where there is none:\n%s", human)
	}
	for _, want := range []string{"the config file cannot be used", "no good config", "no server runs"} {
		if !strings.Contains(human, want) {
			t.Errorf("status lacks %q:\n%s", want, human)
		}
	}
	if st := sb.status(t); st.Host == nil || st.Host.Config.OK || !st.Host.Config.NoGoodConfig {
		t.Errorf("status --json: %+v", st.Host)
	}

	// Fixed: in force; broken again: now the last good config is.
	writeRename(t, sb.configPath(), []byte(`{"version": 1, "mcpServers": {}}`))
	sb.waitStatus(t, "the fixed file in force", func(st statusOut) bool { return st.Host.Config.OK })
	writeRename(t, sb.configPath(), []byte("{"))
	sb.waitStatus(t, "the broken file reported", func(st statusOut) bool { return !st.Host.Config.OK })
	if human := sb.cli(t, "status"); !strings.Contains(human, "the last good config is in force") || strings.Contains(human, "no good config") {
		t.Errorf("status after a good file was read:\n%s", human)
	}
}
