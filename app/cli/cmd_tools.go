package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"os"
	"os/signal"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

func (e *env) logs(args []string) error {
	var follow bool
	f := e.flags()
	f.Bool("f", &follow, "follow")
	pos, _, err := f.parse(args)
	if err != nil {
		return usagef("logs: %v", err)
	}
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
	var events <-chan apiEvent
	if follow {
		ch, err := c.Subscribe(ctx, hostapi.TopicLog)
		if err != nil {
			return err
		}
		events = adapt(ch)
	}
	var r hostapi.LogsResult
	if err := c.Call(ctx, hostapi.MethodLogs, hostapi.NameParams{Name: name}, &r); err != nil {
		return err
	}
	if e.json && !follow {
		return e.printJSON(r.Lines)
	}
	for _, l := range r.Lines {
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
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			var l hostapi.LogLine
			if json.Unmarshal(ev.data, &l) == nil && l.Server == name {
				e.printLine(l.Line)
			}
		}
	}
}

// printLine prints one line of a server's stderr: with its control
// characters escaped (a server must not retitle the terminal or overwrite
// what is shown), or, with --json, as a JSON string holding it exactly.
func (e *env) printLine(l string) {
	if e.json {
		b, _ := json.Marshal(l)
		fmt.Fprintf(e.stdout, "%s\n", termtext.JSON(b))
		return
	}
	fmt.Fprintln(e.stdout, termtext.Escape(l))
}

func (e *env) tools(args []string) error {
	pos, _, err := e.flags().parse(args)
	if err != nil {
		return usagef("tools: %v", err)
	}
	ctx := context.Background()
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
	var r hostapi.ToolsResult
	if err := c.Call(ctx, hostapi.MethodTools, hostapi.NameParams{Name: pos[0]}, &r); err != nil {
		return err
	}
	if e.json {
		return e.printJSON(r.Tools)
	}
	exposed := exposedNames(ctx, c, pos[0])
	for _, t := range r.Tools {
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

func (e *env) call(args []string) error {
	pos, _, err := e.flags().parse(args)
	if err != nil {
		return usagef("call: %v", err)
	}
	if len(pos) < 2 || len(pos) > 3 {
		return usagef("call: give NAME TOOL and, optionally, the arguments as one JSON object")
	}
	var argJSON json.RawMessage
	if len(pos) == 3 {
		if !json.Valid([]byte(pos[2])) {
			return usagef("call: the arguments %q are not valid JSON; write them as one object, e.g. '{\"message\": \"hi\"}'", pos[2])
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
	var res mcp.CallToolResult
	if err := c.Call(ctx, hostapi.MethodCall, hostapi.CallParams{Name: pos[0], Tool: pos[1], Arguments: argJSON}, &res); err != nil {
		return err
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
		return exitError{1}
	}
	return nil
}
