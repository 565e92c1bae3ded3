//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// tsTasks is engine/stdio/testdata/npm/ts-tasks-client.mjs: apps on the
// pinned TypeScript SDK, each with its own real bridge, driven a command
// a line.
type tsTasks struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    *json.Encoder
	lines chan string
	errb  *syncBuffer
}

func startTSTasks(t *testing.T, sb *sandbox) *tsTasks {
	t.Helper()
	testkit.NpmServer(t, "mcp-server-everything") // node and the npm packages, or skip/fail
	script, err := filepath.Abs("../../engine/stdio/testdata/npm/ts-tasks-client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	c := &tsTasks{t: t, cmd: exec.Command("node", script, "--", sbBridge, "bridge"), lines: make(chan string, 16), errb: &syncBuffer{}}
	c.cmd.Env = sb.env
	c.cmd.Stderr = c.errb
	stdin, err := c.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.in = json.NewEncoder(stdin)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// tsAnswer is one answer of the script.
type tsAnswer struct {
	OK       bool            `json:"ok"`
	Error    string          `json:"error"`
	Tasks    json.RawMessage `json:"tasks"`
	Task     *tsTask         `json:"task"`
	Text     string          `json:"text"`
	IsError  bool            `json:"isError"`
	Related  string          `json:"related"`
	IDs      []string        `json:"ids"`
	Statuses []string        `json:"statuses"`
	TaskID   string          `json:"taskId"`
}

type tsTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
}

// do sends one command and returns its answer; the answer must come
// within wait (a call held for a person must not hold the app).
func (c *tsTasks) do(cmd map[string]any) tsAnswer {
	c.t.Helper()
	if err := c.in.Encode(cmd); err != nil {
		c.t.Fatalf("%v: %v\n%s", cmd, err, c.errb.String())
	}
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("%v: the client exited\n%s", cmd, c.errb.String())
		}
		var a tsAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			c.t.Fatalf("%v: the client printed %q", cmd, line)
		}
		return a
	case <-time.After(wait):
		c.t.Fatalf("%v: no answer within %v\n%s", cmd, wait, c.errb.String())
	}
	return tsAnswer{}
}

// must is do for a command that must succeed.
func (c *tsTasks) must(cmd map[string]any) tsAnswer {
	c.t.Helper()
	a := c.do(cmd)
	if !a.OK {
		c.t.Fatalf("%v: %s", cmd, a.Error)
	}
	return a
}

// TestGatewayTasks: task-augmented calls through a real host and real
// bridges, from apps on the pinned TypeScript SDK, to the pinned
// server-everything's task tool: the gateway advertises tasks, a task is
// polled to completion under the gateway's own id (by hand and by the
// SDK's callToolStream), two apps cannot see, read or cancel each other's
// tasks, and a call held for the user's approval is a task at once
// ("working", waiting for the user), which completes once the user
// approves it with the host's API (`switchboard approve`) and fails once
// they deny it.
func TestGatewayTasks(t *testing.T) {
	sb := newSandbox(t)
	everything := testkit.NpmServer(t, "mcp-server-everything")
	sb.cli(t, "servers", "add", "ev", "--env", markEnv+"="+sb.mark, "--", everything)
	sb.cli(t, "servers", "add", "held", "--env", markEnv+"="+sb.mark, "--", everything)
	cfg := readConfig(t, sb.configPath())
	servers(cfg)["held"].(map[string]any)["policy"] = map[string]any{"default": "ask", "tools": map[string]any{"get-sum": "deny"}}
	writeRename(t, sb.configPath(), mustJSON(t, cfg))
	sb.serve(t)
	for _, name := range []string{"ev", "held"} {
		sb.waitServer(t, name, "tools listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })
	}
	c := startTSTasks(t, sb)

	// The gateway advertises what it carries.
	a := c.must(map[string]any{"op": "connect", "app": "a"})
	var caps struct {
		List, Cancel *struct{}
		Requests     struct{ Tools struct{ Call *struct{} } }
	}
	if json.Unmarshal(a.Tasks, &caps) != nil || caps.List == nil || caps.Cancel == nil || caps.Requests.Tools.Call == nil {
		t.Fatalf("the gateway's tasks capability: %s", a.Tasks)
	}
	c.must(map[string]any{"op": "connect", "app": "b"})

	// A task of server-everything, under the gateway's id.
	research := func(app, server, topic string) tsTask {
		t.Helper()
		r := c.must(map[string]any{"op": "call", "app": app, "tool": server + "__simulate-research-query", "args": map[string]any{"topic": topic}})
		if r.Task == nil || !strings.HasPrefix(r.Task.TaskID, "sbtask-") {
			t.Fatalf("the task of a call: %+v", r.Task)
		}
		return *r.Task
	}
	ta := research("a", "ev", "gateways")
	if ta.Status != "working" {
		t.Errorf("a new task: %+v", ta)
	}

	// b sees nothing of a's task, and cannot touch it.
	for _, op := range []string{"get", "cancel", "result"} {
		if r := c.do(map[string]any{"op": op, "app": "b", "taskId": ta.TaskID}); r.OK || !strings.Contains(r.Error, "not found") {
			t.Errorf("b's %s of a's task: %+v", op, r)
		}
	}
	if r := c.must(map[string]any{"op": "list", "app": "b"}); len(r.IDs) != 0 {
		t.Errorf("b's tasks/list: %v", r.IDs)
	}
	if r := c.must(map[string]any{"op": "list", "app": "a"}); !slices.Equal(r.IDs, []string{ta.TaskID}) {
		t.Errorf("a's tasks/list: %v, want [%s]", r.IDs, ta.TaskID)
	}

	// a polls it to completion.
	testkit.Eventually(t, "a's task completes", func() (bool, string) {
		r := c.must(map[string]any{"op": "get", "app": "a", "taskId": ta.TaskID})
		if r.Task.TaskID != ta.TaskID {
			t.Fatalf("tasks/get answered for %q", r.Task.TaskID)
		}
		return r.Task.Status == "completed", r.Task.Status
	})
	r := c.must(map[string]any{"op": "result", "app": "a", "taskId": ta.TaskID})
	if !strings.Contains(r.Text, "Research Report: gateways") || r.IsError || r.Related != ta.TaskID {
		t.Errorf("the task's result: %+v", r)
	}

	// The SDK's own polling (callToolStream), to the end.
	r = c.must(map[string]any{"op": "stream", "app": "b", "tool": "ev__simulate-research-query", "args": map[string]any{"topic": "streams"}})
	if !strings.Contains(r.Text, "Research Report: streams") || len(r.Statuses) == 0 || r.Statuses[len(r.Statuses)-1] != "completed" {
		t.Errorf("callToolStream: %+v", r)
	}

	// The server asks the app a question inside its task (an ambiguous
	// query: elicitation/create while the app waits in tasks/result): the
	// question reaches the app whose task it is, through the gateway.
	c.must(map[string]any{"op": "connect", "app": "asker", "elicit": "programming"})
	r = c.must(map[string]any{"op": "stream", "app": "asker", "tool": "ev__simulate-research-query", "args": map[string]any{"topic": "python", "ambiguous": true}})
	if !strings.Contains(r.Text, "Clarification**: programming") || !slices.Contains(r.Statuses, "input_required") {
		t.Errorf("an ambiguous query's task: %+v", r)
	}

	// A tool that is no task at its server (its tools/list says no
	// execution.taskSupport; sent a task member, server-everything would
	// refuse the call): the gateway's task, whose result is the call's.
	r = c.must(map[string]any{"op": "call", "app": "a", "tool": "ev__echo", "args": map[string]any{"message": "plain"}})
	if r.Task == nil || !strings.HasPrefix(r.Task.TaskID, "sbtask-") {
		t.Fatalf("a plain tool's task: %+v", r.Task)
	}
	if r := c.must(map[string]any{"op": "result", "app": "a", "taskId": r.Task.TaskID}); r.Text != "Echo: plain" || r.IsError {
		t.Errorf("a plain tool's task's result: %+v", r)
	}
	// Refused by a policy before the server sees it: a failed task.
	r = c.must(map[string]any{"op": "call", "app": "a", "tool": "held__get-sum", "args": map[string]any{"a": 1, "b": 2}})
	if r.Task == nil || r.Task.Status != "failed" || !strings.Contains(r.Task.StatusMessage, "policy") {
		t.Errorf("a denied call's task: %+v", r.Task)
	}

	// Cancelling: only by its app.
	tc := research("a", "ev", "cancelled")
	if r := c.do(map[string]any{"op": "cancel", "app": "b", "taskId": tc.TaskID}); r.OK {
		t.Errorf("b cancelled a's task: %+v", r)
	}
	if r := c.must(map[string]any{"op": "cancel", "app": "a", "taskId": tc.TaskID}); r.Task.Status != "cancelled" || r.Task.TaskID != tc.TaskID {
		t.Errorf("a's cancel: %+v", r.Task)
	}
	if r := c.must(map[string]any{"op": "get", "app": "a", "taskId": tc.TaskID}); r.Task.Status != "cancelled" {
		t.Errorf("a cancelled task: %+v", r.Task)
	}

	// Held for the user's approval: a task at once, that waits.
	ap := startApprover(t, sb)
	th := research("a", "held", "approved")
	if th.Status != "working" || !strings.Contains(th.StatusMessage, "approve") {
		t.Errorf("a held call's task: %+v", th)
	}
	w := waiting(t, ap, "held", "simulate-research-query")
	if r := c.must(map[string]any{"op": "get", "app": "a", "taskId": th.TaskID}); r.Task.Status != "working" || !strings.Contains(r.Task.StatusMessage, "approve") {
		t.Errorf("tasks/get of a held call: %+v", r.Task)
	}
	sb.cli(t, "approve", w.ID)
	r = c.must(map[string]any{"op": "result", "app": "a", "taskId": th.TaskID})
	if !strings.Contains(r.Text, "Research Report: approved") || r.IsError || r.Related != th.TaskID {
		t.Errorf("the approved task's result: %+v", r)
	}
	if r := c.must(map[string]any{"op": "get", "app": "a", "taskId": th.TaskID}); r.Task.Status != "completed" {
		t.Errorf("the approved task: %+v", r.Task)
	}

	// Denied: the task fails, and its result says why.
	td := research("a", "held", "denied")
	w = waiting(t, ap, "held", "simulate-research-query")
	sb.cli(t, "deny", w.ID)
	r = c.must(map[string]any{"op": "result", "app": "a", "taskId": td.TaskID})
	if !r.IsError || !strings.Contains(r.Text, "denied") {
		t.Errorf("the denied task's result: %+v", r)
	}
	if r := c.must(map[string]any{"op": "get", "app": "a", "taskId": td.TaskID}); r.Task.Status != "failed" {
		t.Errorf("the denied task: %+v", r.Task)
	}
}
