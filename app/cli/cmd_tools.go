package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

func (e *env) logs(a *argv) error {
	follow, pos := a.flag("follow"), a.pos
	if len(pos) != 1 {
		return usagef("logs: give one server NAME")
	}
	name := pos[0]
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	c, err := e.needHost(ctx, "logs")
	if err != nil {
		return err
	}
	defer c.Close()
	var events <-chan hostapi.LogLine
	if follow {
		// Subscribed before the kept lines are read: no line falls
		// between.
		if events, err = c.FollowLogs(ctx); err != nil {
			return err
		}
	}
	lines, err := c.LogLines(ctx, name)
	if err != nil {
		return err
	}
	// Only a captured stderr is kept: else say where it goes (on stderr,
	// so that stdout stays the lines).
	noted := false
	if raw, err := c.GetServer(ctx, name); err == nil {
		if note := stderrNote(name, raw); note != "" {
			fmt.Fprintln(e.stderr, note)
			noted = true
		}
	}
	if len(lines) == 0 && !noted && !e.json {
		// Not a silent nothing: a server that never started (its command
		// not found) has no line, not even a start's.
		fmt.Fprintf(e.stderr, "%s has written nothing to its stderr yet; 'switchboard status' shows its state and last error\n", name)
	}
	if e.json && !follow {
		out := make([]logJSON, len(lines))
		for i, l := range lines {
			out[i] = logJSON{Time: l.Time, Line: l.Line}
		}
		return e.printJSON(out)
	}
	for _, l := range lines {
		e.printLine(l)
	}
	if !follow {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.Done():
			return fmt.Errorf("the host went away")
		case l, ok := <-events:
			if !ok {
				return nil
			}
			if l.Server == name {
				e.printLine(l)
			}
		}
	}
}

// logJSON is a line of `logs --json`: when the host read it (RFC 3339,
// absent from an older host) and its exact text.
type logJSON struct {
	Time time.Time `json:"time,omitzero"`
	Line string    `json:"line"`
}

// logTime is how `logs` prints when a line was read: the local date and
// time to the millisecond, which sorts as text and tells the runs of
// several days apart.
const logTime = "2006-01-02 15:04:05.000"

// printLine prints one line of a server's stderr after its local time:
// with its control characters escaped (a server must not retitle the
// terminal or overwrite what is shown), or, with --json, as a JSON object
// whose line holds it exactly. A line from a host that sends no time is
// printed alone.
func (e *env) printLine(l hostapi.LogLine) {
	if e.json {
		b, _ := json.Marshal(logJSON{Time: l.Time, Line: l.Line})
		fmt.Fprintf(e.stdout, "%s\n", termtext.JSON(b))
		return
	}
	if l.Time.IsZero() {
		fmt.Fprintln(e.stdout, termtext.Escape(l.Line))
		return
	}
	fmt.Fprintln(e.stdout, l.Time.Local().Format(logTime), termtext.Escape(l.Line))
}

func (e *env) tools(a *argv) error {
	pos := a.pos
	ctx := context.Background()
	if a.flag("cost") || a.str("profile") != "" {
		return e.toolsCost(a) // cmd_cost.go
	}
	if len(pos) == 0 {
		return e.gatewayTools(ctx) // the gateway's names of everything
	}
	if len(pos) != 1 {
		return usagef("tools: give one server NAME, or none for the gateway's names")
	}
	c, err := e.needHost(ctx, "tools")
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.Tools(ctx, pos[0])
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(tools)
	}
	exposed := exposedNames(ctx, c, pos[0])
	for _, t := range tools {
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(e.stdout, "%s\n    %s\n", termtext.Escape(t.Name), termtext.Escape(desc))
		if n, ok := exposed[t.Name]; ok && n.Hidden == "" {
			fmt.Fprintf(e.stdout, "    gateway: %s\n", n.Exposed)
		} else if ok {
			fmt.Fprintf(e.stdout, "    gateway: not exposed (%s)\n", n.Hidden)
		}
		if t.InputSchema != nil {
			b, _ := json.Marshal(t.InputSchema)
			fmt.Fprintf(e.stdout, "    input: %s\n", termtext.JSON(b))
		}
	}
	return nil
}

func (e *env) call(a *argv) error {
	pos := a.pos
	if len(pos) < 2 || len(pos) > 3 {
		return usagef("call: give NAME TOOL and, optionally, the arguments as one JSON object")
	}
	var argJSON json.RawMessage
	if len(pos) == 3 {
		if !json.Valid([]byte(pos[2])) {
			return usagef("call: the arguments %q are not valid JSON; write them as one object, e.g. '{\"message\": \"hi\"}'", pos[2])
		}
		if t := bytes.TrimSpace([]byte(pos[2])); t[0] != '{' {
			// A tool's arguments are one object (MCP's "arguments"); a
			// list or a bare value would reach the server and come back
			// as its validator's dump.
			return usagef("call: the arguments %s are not a JSON object; write them as one object of the tool's parameters, e.g. '{\"message\": \"hi\"}' ('switchboard tools %s' shows them)", pos[2], pos[0])
		}
		argJSON = json.RawMessage(pos[2])
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	c, err := e.needHost(ctx, "call")
	if err != nil {
		return err
	}
	defer c.Close()
	raw, err := c.Call(ctx, pos[0], pos[1], argJSON)
	if err != nil {
		if hint := noSuchTool(ctx, c, pos[0], pos[1]); hint != "" {
			return fmt.Errorf("%w\n%s", err, hint)
		}
		return err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("the answer of %s's tool %s is not a tool result: %w", pos[0], pos[1], err)
	}
	if e.json {
		return e.printJSON(&res)
	}
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(e.stdout, termtext.Text(v.Text))
		default:
			b, _ := json.Marshal(ct)
			fmt.Fprintln(e.stdout, string(termtext.JSON(b)))
		}
	}
	if res.StructuredContent != nil && len(res.Content) == 0 {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(e.stdout, string(termtext.JSON(b)))
	}
	if res.IsError {
		if hint := noSuchTool(ctx, c, pos[0], pos[1]); hint != "" {
			fmt.Fprintln(e.stderr, "switchboard: "+hint)
		}
		return exitError{1}
	}
	return nil
}

// noSuchTool says, after a failed call, that the server has no tool of
// that name (the server's own words for it vary, and often lack the
// remedy), with the tool it probably meant; "" when it has one, or its
// tools cannot be had.
func noSuchTool(ctx context.Context, c *client.Conn, server, tool string) string {
	tools, err := c.Tools(ctx, server)
	if err != nil || len(tools) == 0 {
		return ""
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		if t.Name == tool {
			return ""
		}
		names[i] = t.Name
	}
	return fmt.Sprintf("%s has no tool %q%s: 'switchboard tools %s' lists its tools", server, termtext.Escape(tool), english.DidYouMean(tool, names), server)
}

// stderrNote says where a server's stderr goes when the host does not
// capture it (its entry's "stderr"), or "" when it does.
func stderrNote(name string, entry json.RawMessage) string {
	var e struct {
		Stderr json.RawMessage `json:"stderr"`
	}
	if json.Unmarshal(entry, &e) != nil || len(e.Stderr) == 0 {
		return "" // the default: capture
	}
	var kind string
	var file struct {
		File string `json:"file"`
	}
	switch {
	case json.Unmarshal(e.Stderr, &kind) == nil:
	case json.Unmarshal(e.Stderr, &file) == nil && file.File != "":
		return fmt.Sprintf("%s's stderr is not captured: it is appended to the file %s (\"stderr\": {\"file\": ...}); read it there", name, termtext.Escape(file.File))
	default:
		return ""
	}
	fix := fmt.Sprintf("'switchboard servers set %s --stderr capture' keeps it for 'switchboard logs'", name)
	switch kind {
	case "inherit":
		return fmt.Sprintf("%s's stderr is not captured (\"stderr\": \"inherit\"): it goes to the host's own stderr (the terminal of 'switchboard serve'; the service's log for the background service); %s", name, fix)
	case "discard":
		return fmt.Sprintf("%s's stderr is not captured (\"stderr\": \"discard\"): it is thrown away; %s", name, fix)
	}
	return ""
}
