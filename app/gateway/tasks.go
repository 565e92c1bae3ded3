package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// Tasks (the tasks of the 2025-11-25 protocol, SEP-1686, as the pinned
// TypeScript SDK 1.32 and server-everything speak them): a tools/call
// with a "task" member returns a task at once ({"task": {"taskId", "status",
// ...}}), which the app polls with tasks/get, whose result it takes with
// tasks/result, and which it may cancel (tasks/cancel) or list
// (tasks/list). The go-sdk knows none of it, so the lean path of a socket
// client answers these requests itself (tryLean); the HTTP endpoint does
// not advertise tasks, and a task member sent there is ignored (the call
// is answered as a plain call, as the protocol allows).
//
// Every task an app sees is the gateway's: an id of its own ("sbtask-" and
// 128 random bits, base32), bound to the connection that made it. Two
// servers' task ids may be equal, and the ids of one server are shared by
// every app (the host has one session per server): an app names a task
// only by the gateway's id, and a task of another connection is "not
// found" to it, as one that never was. Behind an id is either
//
//   - the server's task: the call was forwarded with its task member and
//     the server answered with a task; tasks/get, tasks/result and
//     tasks/cancel go to that server under the server's own id, and the
//     answer comes back with the gateway's id; or
//   - a task the gateway keeps: the call waits for the user's approval
//     (the app gets a task in state "working" at once, whose statusMessage
//     says so, rather than a request held open), or its server answered
//     with a plain result (a server without tasks: the call ran to its end
//     first). Once the user decides, the call goes to the server; a task
//     the server then makes becomes the one behind the id.

// taskIDPrefix starts the ids of the gateway's tasks.
const taskIDPrefix = "sbtask-"

// maxTasksPerConn bounds the tasks one connection keeps: past it, the
// oldest ended one is forgotten (or the new call is refused).
const maxTasksPerConn = 256

// taskPollInterval is the pollInterval the gateway's own tasks suggest.
const taskPollInterval = 1000

// The statuses of a task.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// relatedTaskKey is the _meta key that ties a message to a task.
const relatedTaskKey = protocolMetaPrefix + "related-task"

// waitingForApproval is a held call's statusMessage.
const waitingForApproval = "waiting for the user to approve this call in Switchboard"

// taskTable is a gateway's tasks, by the gateway's id.
type taskTable struct {
	mu   sync.Mutex
	byID map[string]*gwTask
	// tools are, by server, the tools that are tasks at their server
	// (execution.taskSupport "optional" or "required"), as of a view.
	tools map[string]*taskTools
}

// taskTools is what a server's raw tools/list said of its tools' task
// support, while the gateway's view was view.
type taskTools struct {
	view  *view
	names map[string]bool
}

// gwTask is one task an app made.
type gwTask struct {
	id     string
	owner  uint64 // the connection that made it (relay.Caller.ID)
	server string
	tool   string // the server's own name of the tool

	mu       sync.Mutex
	answered bool   // the app got the tools/call's answer
	remote   string // the server's task id, once it made one
	status   string
	message  string
	created  time.Time
	updated  time.Time
	ttl      json.RawMessage // the app's requested ttl, or null
	result   json.RawMessage // the call's result object, once it ended (the gateway's task)
	rpcErr   *jsonrpc.Error  // or its JSON-RPC error
	done     chan struct{}   // closed when the gateway's task ends, or becomes the server's
	stop     func()          // withdraws the call while it is the gateway's
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return taskIDPrefix + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
}

// add makes a task of connection owner for a call of server's tool.
func (tt *taskTable) add(owner uint64, server, tool string, ttl json.RawMessage) (*gwTask, error) {
	now := time.Now().UTC()
	if !isSet(ttl) {
		ttl = json.RawMessage("null")
	}
	t := &gwTask{id: newTaskID(), owner: owner, server: server, tool: tool, status: taskWorking,
		created: now, updated: now, ttl: ttl, done: make(chan struct{})}
	mine := tt.of(owner)
	if len(mine) >= maxTasksPerConn {
		var oldest *gwTask
		for _, o := range mine {
			if o.ended() {
				oldest = o
				break
			}
		}
		if oldest == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
				"this connection has %d tasks that have not ended: Switchboard keeps no more; wait for one to end, or cancel one (tasks/cancel)", len(mine))}
		}
		tt.remove(oldest)
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.byID == nil {
		tt.byID = map[string]*gwTask{}
	}
	tt.byID[t.id] = t
	return t, nil
}

// lookup returns the task id of connection owner; nil for a task that is
// not there, or is another connection's.
func (tt *taskTable) lookup(owner uint64, id string) *gwTask {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if t := tt.byID[id]; t != nil && t.owner == owner {
		return t
	}
	return nil
}

// remove forgets a task (its call failed before the app got a task).
func (tt *taskTable) remove(t *gwTask) {
	tt.mu.Lock()
	delete(tt.byID, t.id)
	tt.mu.Unlock()
}

// of returns the tasks of connection owner, oldest first.
func (tt *taskTable) of(owner uint64) []*gwTask {
	tt.mu.Lock()
	var out []*gwTask
	for _, t := range tt.byID {
		if t.owner == owner {
			out = append(out, t)
		}
	}
	tt.mu.Unlock()
	slices.SortFunc(out, func(a, b *gwTask) int { return a.created.Compare(b.created) })
	return out
}

// dropConn forgets the tasks of a connection that ended: no one can name
// them any more. A call still held or running is withdrawn; a server's
// task that has not ended is cancelled at the server.
func (g *Gateway) dropConn(owner uint64, rb RawBackend) {
	tt := &g.tasks
	tt.mu.Lock()
	var gone []*gwTask
	for id, t := range tt.byID {
		if t.owner == owner {
			gone = append(gone, t)
			delete(tt.byID, id)
		}
	}
	tt.mu.Unlock()
	for _, t := range gone {
		t.mu.Lock()
		stop, remote := t.stop, t.remote
		t.stop = nil
		t.mu.Unlock()
		if stop != nil {
			stop()
		}
		if remote != "" && rb != nil {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, _ = forwardTask(ctx, rb, t.server, "tasks/cancel", remote, relay.Caller{ID: owner})
			}()
		}
	}
}

// ended reports whether the gateway's task has ended (a server's task is
// asked: it is not counted as ended).
func (t *gwTask) ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.remote == "" && terminal(t.status)
}

func terminal(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

// taskJSON is the gateway's task as the protocol's Task object (t.mu held).
func (t *gwTask) taskJSON() []byte {
	out := []byte(`{"taskId":`)
	out = relay.AppendString(out, t.id)
	out = append(out, `,"status":`...)
	out = relay.AppendString(out, t.status)
	if t.message != "" {
		out = append(out, `,"statusMessage":`...)
		out = relay.AppendString(out, t.message)
	}
	out = append(out, `,"ttl":`...)
	out = append(out, t.ttl...)
	out = append(out, `,"createdAt":`...)
	out = relay.AppendString(out, t.created.Format(time.RFC3339Nano))
	out = append(out, `,"lastUpdatedAt":`...)
	out = relay.AppendString(out, t.updated.Format(time.RFC3339Nano))
	out = append(out, `,"pollInterval":`...)
	out = fmt.Appendf(out, "%d}", taskPollInterval)
	return out
}

// set changes the gateway's task's status (t.mu held).
func (t *gwTask) set(status, message string) {
	t.status, t.message, t.updated = status, message, time.Now().UTC()
}

// end ends the gateway's task with a result or an error (t.mu held).
func (t *gwTask) end(status, message string, result json.RawMessage, rpcErr *jsonrpc.Error) {
	if t.remote != "" || terminal(t.status) {
		return
	}
	t.set(status, message)
	t.result, t.rpcErr, t.stop = result, rpcErr, nil
	close(t.done)
}

// serverTaskID returns the taskId of a CreateTaskResult (a result whose
// "task" member is an object with a string taskId), or "".
func serverTaskID(raw []byte) string {
	var r struct {
		Task *struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if !bytes.Contains(raw, []byte(`"task"`)) || json.Unmarshal(raw, &r) != nil || r.Task == nil {
		return ""
	}
	return r.Task.TaskID
}

// renamed is a Task object of a server with the gateway's id: its members
// as the server wrote them, but for taskId and _meta.
func renamed(raw json.RawMessage, id string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "_meta")
	q, _ := json.Marshal(id)
	m["taskId"] = q
	return json.Marshal(m)
}

// forwardTask sends a tasks/get, tasks/result or tasks/cancel of the
// server's task id to server, and returns its result object.
func forwardTask(ctx context.Context, rb RawBackend, server, method, remote string, caller relay.Caller) (*relay.Result, error) {
	params := relay.AppendString([]byte(`"taskId":`), remote)
	c := &relay.Call{Method: method, Tool: "task " + remote, Caller: caller, Params: params, FollowUp: true}
	_, res, err := relay.Do(ctx, rb, server, c)
	return res, err
}

// taskNotFound is the answer for an id the app may not name.
func taskNotFound(id string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Failed to retrieve task: task %q not found", id)}
}

// leanTaskCall is a tools/call with a task member (p.Task) on the lean
// path: see the comment at the top of the file. It never waits on the
// reader.
func (c *sockConn) leanTaskCall(rawID json.RawMessage, p leanCallParams) bool {
	if !isObject(p.Task) {
		return false // the go-sdk's path answers it (and ignores the member)
	}
	go c.runTaskCall(rawID, p)
	return true
}

func (c *sockConn) runTaskCall(rawID json.RawMessage, p leanCallParams) {
	e, down := c.f.resolveTool(c.ctx, p.Name)
	if c.ctx.Err() != nil {
		return
	}
	if e == nil && down == nil {
		_ = c.send(errorLine(rawID, unknownTool(p.Name)))
		return
	}
	server, tool := "", p.Name
	if e != nil {
		server, tool = e.server, e.name
	} else {
		server = down.st.Name
	}
	var ttl json.RawMessage
	_ = relay.Members(p.Task, func(key, val []byte) bool {
		if string(key) == `"ttl"` && len(val) > 0 && (val[0] == '-' || (val[0] >= '0' && val[0] <= '9')) {
			ttl = val
		}
		return true
	})
	t, err := c.g.tasks.add(c.f.connID, server, tool, bytes.Clone(ttl))
	if err != nil {
		_ = c.send(errorLine(rawID, err))
		return
	}
	// answer sends the tools/call's answer once (t.mu held).
	answer := func(line []byte) {
		if !t.answered {
			t.answered = true
			_ = c.send(line)
		}
	}
	created := func() []byte { return taskResultLine(rawID, t.taskJSON()) }
	// failed ends the task with a call's failure (t.mu held): a tool
	// error (a server down, a denial, a timeout) is a failed task whose
	// result says why; a JSON-RPC error before the app has its task is
	// the call's answer.
	failed := func(err error) {
		var rpc *jsonrpc.Error
		if !t.answered && errors.As(err, &rpc) {
			c.g.tasks.remove(t)
			answer(errorLine(rawID, rpc))
			return
		}
		result, rpcErr, text := c.failure(err)
		t.end(taskFailed, text, result, rpcErr)
		answer(created())
	}
	if down != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		b, _ := json.Marshal(toolError(down.text()))
		t.end(taskFailed, down.text(), b, nil)
		answer(created())
		return
	}
	call := &relay.Call{Tool: e.name, Caller: c.caller(p.era.info), Arguments: p.Arguments, Meta: p.Meta, Task: p.Task}
	if !c.taskTool(e.server, e.name) {
		// Not a task at its server: the gateway's task, answered once the
		// call is started (Start never waits), while the call runs.
		call.Task = nil
	}
	call.OnHold = func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.set(taskWorking, waitingForApproval)
		answer(created())
	}
	call.Done = func(res *relay.Result, err error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if err != nil {
			failed(err)
			return
		}
		if remote := serverTaskID(res.Raw); remote != "" {
			if t.remote == "" && !terminal(t.status) {
				t.remote, t.stop = remote, nil
				t.message = ""
				close(t.done)
			}
			if !t.answered {
				var task json.RawMessage
				_ = relay.Members(res.Raw, func(key, val []byte) bool {
					if string(key) == `"task"` {
						task = val
					}
					return true
				})
				if own, err := renamed(task, t.id); err == nil {
					answer(taskResultLine(rawID, own))
				} else {
					answer(created())
				}
			}
			return
		}
		// A plain result: a server without tasks ran the call to its end.
		status, message := taskCompleted, ""
		if res.IsError {
			status, message = taskFailed, "the tool answered with an error"
		}
		t.end(status, message, bytes.Clone(res.Raw), nil)
		answer(created())
	}
	stop, err := c.rb.StartToolCall(e.server, call)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		failed(err)
		return
	}
	if t.remote == "" && !terminal(t.status) {
		t.stop = stop
	}
	if call.Task == nil {
		answer(created())
	}
}

// taskTool reports whether tool of server is a task at its server: its
// definition says execution.taskSupport "optional" or "required". The
// go-sdk's Tool has no member for it, so the gateway asks the server's
// tools/list itself (once per view of the gateway, and only for a
// task-augmented call); a server that cannot be asked has no task tools.
func (c *sockConn) taskTool(server, tool string) bool {
	v := c.g.current()
	tt := &c.g.tasks
	tt.mu.Lock()
	k := tt.tools[server]
	tt.mu.Unlock()
	if k == nil || k.view != v {
		k = &taskTools{view: v, names: c.fetchTaskTools(server)}
		tt.mu.Lock()
		if tt.tools == nil {
			tt.tools = map[string]*taskTools{}
		}
		tt.tools[server] = k
		tt.mu.Unlock()
	}
	return k.names[tool]
}

// fetchTaskTools lists server's tools (every page) and returns those that
// are tasks.
func (c *sockConn) fetchTaskTools(server string) map[string]bool {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	names := map[string]bool{}
	var cursor string
	for range 100 {
		call := &relay.Call{Method: "tools/list", Tool: "tools/list", FollowUp: true}
		if cursor != "" {
			call.Params = relay.AppendString([]byte(`"cursor":`), cursor)
		}
		raw, _, err := relay.Do(ctx, c.rb, server, call)
		if err != nil {
			return names
		}
		var page struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(raw, &page) != nil {
			return names
		}
		for _, t := range page.Tools {
			if t.Execution != nil && (t.Execution.TaskSupport == "optional" || t.Execution.TaskSupport == "required") {
				names[t.Name] = true
			}
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			break
		}
		cursor = page.NextCursor
	}
	return names
}

// failure is a failed call as the gateway's task keeps it: a tool error's
// result (a server that is down, a timeout, a denial) or the server's
// JSON-RPC error, and the text for the statusMessage.
func (c *sockConn) failure(err error) (json.RawMessage, *jsonrpc.Error, string) {
	var nr *NotRunningError
	var rpc *jsonrpc.Error
	text := err.Error()
	switch {
	case errors.As(err, &rpc):
		return nil, rpc, rpc.Message
	case errors.As(err, &nr):
		text = c.g.downText(nr)
	}
	b, _ := json.Marshal(toolError(text))
	return b, nil, text
}

// taskResultLine is the answer {"task": task} to request id.
func taskResultLine(id json.RawMessage, task []byte) []byte {
	return resultObjectLine(id, append(append([]byte(`{"task":`), task...), '}'))
}

// resultObjectLine is a response whose result is obj.
func resultObjectLine(id json.RawMessage, obj []byte) []byte {
	out := make([]byte, 0, len(obj)+len(id)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, obj...)
	return append(out, "}\n"...)
}

// leanTask answers tasks/get, tasks/result, tasks/cancel and tasks/list
// of a socket client, on a goroutine of its own (they may wait for a
// server, or for a task's end).
func (c *sockConn) leanTask(req *leanRequest, method string) bool {
	ss := c.ss.Load()
	if ss == nil || ss.InitializeParams() == nil || c.rb == nil {
		return false
	}
	if _, ok := rawID(req.ID); !ok {
		return false
	}
	var taskID string
	if isSet(req.Params) {
		if req.Params[0] != '{' {
			return false
		}
		plain := true
		if relay.Members(req.Params, func(key, val []byte) bool {
			if string(key) == `"taskId"` {
				plain = json.Unmarshal(val, &taskID) == nil
			}
			return plain
		}) != nil || !plain {
			return false
		}
	}
	if method != "tasks/list" && taskID == "" {
		return false // the go-sdk's path: method not found
	}
	id := req.ID
	go func() {
		line := c.taskAnswer(id, method, taskID)
		if line != nil {
			_ = c.send(line)
		}
	}()
	return true
}

// taskAnswer is the response to a task request of the connection, or nil
// if the connection ended first.
func (c *sockConn) taskAnswer(id json.RawMessage, method, taskID string) []byte {
	owner := c.f.connID
	caller := c.caller(nil)
	if method == "tasks/list" {
		out := []byte(`{"tasks":[`)
		n := 0
		for _, t := range c.g.tasks.of(owner) {
			task := c.taskNow(t, caller)
			if task == nil {
				continue
			}
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = append(out, task...)
		}
		return resultObjectLine(id, append(out, "]}"...))
	}
	t := c.g.tasks.lookup(owner, taskID)
	if t == nil {
		return errorLine(id, taskNotFound(taskID))
	}
	switch method {
	case "tasks/get":
		if task := c.taskNow(t, caller); task != nil {
			return resultObjectLine(id, task)
		}
		return errorLine(id, taskNotFound(taskID))
	case "tasks/cancel":
		t.mu.Lock()
		remote := t.remote
		if remote == "" {
			defer t.mu.Unlock()
			if terminal(t.status) {
				return errorLine(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Cannot cancel task in terminal status: " + t.status})
			}
			if t.stop != nil {
				t.stop() // the approval goes away, or the server is told
			}
			t.end(taskCancelled, "cancelled by the app", nil, nil)
			return resultObjectLine(id, t.taskJSON())
		}
		t.mu.Unlock()
		return c.forwarded(id, t, "tasks/cancel", remote, caller)
	}
	// tasks/result: once the task has ended (or is the server's).
	select {
	case <-t.done:
	case <-c.ctx.Done():
		return nil
	}
	t.mu.Lock()
	remote, status, result, rpcErr := t.remote, t.status, t.result, t.rpcErr
	t.mu.Unlock()
	switch {
	case remote != "":
		return c.forwarded(id, t, "tasks/result", remote, caller)
	case rpcErr != nil:
		return errorLine(id, rpcErr)
	case result == nil:
		return errorLine(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q was %s and has no result", taskID, status)})
	}
	res, err := relay.ScanResult(result)
	if err != nil {
		return errorLine(id, err)
	}
	return resultObjectLine(id, withRelatedTask(res, t.id, t.server))
}

// taskNow is the task object of t as it is now (asked of its server if it
// is the server's), or nil if the server no longer has it.
func (c *sockConn) taskNow(t *gwTask, caller relay.Caller) []byte {
	t.mu.Lock()
	remote := t.remote
	if remote == "" {
		defer t.mu.Unlock()
		return t.taskJSON()
	}
	t.mu.Unlock()
	res, err := forwardTask(c.ctx, c.rb, t.server, "tasks/get", remote, caller)
	if err != nil {
		return nil
	}
	own, err := renamed(res.Raw, t.id)
	if err != nil {
		return nil
	}
	return own
}

// forwarded sends a task request to t's server under its own id, and is
// the answer with the gateway's id in it.
func (c *sockConn) forwarded(id json.RawMessage, t *gwTask, method, remote string, caller relay.Caller) []byte {
	res, err := forwardTask(c.ctx, c.rb, t.server, method, remote, caller)
	if c.ctx.Err() != nil {
		return nil
	}
	if err != nil {
		var rpc *jsonrpc.Error
		var nr *NotRunningError
		switch {
		case errors.As(err, &rpc):
			return errorLine(id, rpc)
		case errors.As(err, &nr):
			return errorLine(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: c.g.downText(nr)})
		}
		return errorLine(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
	}
	if method == "tasks/result" {
		return resultObjectLine(id, withRelatedTask(res, t.id, t.server))
	}
	own, err := renamed(res.Raw, t.id)
	if err != nil {
		return errorLine(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"Switchboard server %q answered %s with a task that does not decode: %v", t.server, method, err)})
	}
	return resultObjectLine(id, own)
}

// withRelatedTask is a tool's result (a task's payload) as the app gets
// it: what normalize keeps, and the related-task _meta naming the
// gateway's id.
func withRelatedTask(res *relay.Result, id, server string) []byte {
	meta := serverMeta(nil, res.Meta, server)
	rel := relay.AppendString([]byte(`{"taskId":`), id)
	meta = append(meta, member{[]byte(`"` + relatedTaskKey + `"`), append(rel, '}')})
	return appendResult(nil, res, meta, nil)
}

// tasksCapability is the gateway's tasks capability, in a socket client's
// initialize answer: task-augmented tools/call, tasks/list and
// tasks/cancel.
var tasksCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// withTasksCapability adds the tasks capability to an initialize result.
func withTasksCapability(result json.RawMessage) json.RawMessage {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return result
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(r["capabilities"], &caps) != nil || caps == nil {
		return result
	}
	caps["tasks"] = tasksCapability
	b, err := json.Marshal(caps)
	if err != nil {
		return result
	}
	r["capabilities"] = b
	out, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return out
}
