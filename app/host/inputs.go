//lint:file-ignore SA1019 roots and sampling are deprecated as of 2026-07-28 (SEP-2577) and still used by the apps and servers of the eras before it, for whom Switchboard carries them

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/elicit"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// A server's requests to its client (issue 30 §1, §2): elicitation/create,
// sampling/createMessage and roots/list. One instance of a server serves
// many apps, so the host's client of each server declares what the host
// can honour for any of them (clientCapabilities) and routes each request:
//
//   - to the app that caused it: the one app whose calls are in flight on
//     the server (relay.Callers; a stdio connection carries no reference
//     from a server's request to the call it serves), if that app
//     declared the capability. Its request goes over the app's own
//     session (gateway.App): ids of that session, the answer back under
//     the server's id, a cancellation by the server carried to the app;
//   - else, for an elicitation, to a person: a question in the tray, the
//     window and 'switchboard requests' (this file's questions), answered
//     with requests.answer; with no one to ask (nothing follows the
//     requests event), it is cancelled at once;
//   - a sampling request to the app the caller's profile names
//     ("sampling"), else the calling app, if it declared sampling; else it
//     is declined with an error that says so (Switchboard has no model);
//   - roots from the calling app if it declared roots and gives some, else the caller's
//     profile's "roots", else none.
//
// While a server waits for such an answer its calls' callTimeout does not
// run (relay.Pause): a person's time is not the server's.

// QuestionTimeout is how long a question waits for a person before it is
// cancelled (a variable for tests).
var QuestionTimeout = 5 * time.Minute

// maxWaitingPerServer bounds the questions of one server that wait at
// once: a server that sends more (a flood) has the others cancelled at
// once, so it can neither grow the host's memory nor bury the tray and
// the window in prompts.
const maxWaitingPerServer = 4

// clientCapabilities are what the host's client of every server declares:
// what it can honour through an app or a person.
func clientCapabilities() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{},
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}
}

// inputs routes the servers' requests and keeps the questions that wait
// for a person.
type inputs struct {
	m *Manager
	// gw is the gateway whose apps the requests go to (nil: none yet).
	gw func() *gateway.Gateway
	// changed publishes the questions (TopicRequests); askers counts who
	// follows them (no one: a question is cancelled at once).
	changed func([]hostapi.InputRequest)
	askers  func() int

	mu      sync.Mutex
	seq     int
	waiting []*question
	pubMu   sync.Mutex // orders the publishes (publish)
}

type question struct {
	req    hostapi.InputRequest
	fields []hostapi.InputField
	answer chan *mcp.ElicitResult // capacity 1
}

// clientOptions are the handlers of a server's requests, for the host's
// client of server s.
func (in *inputs) handlers(s *server, o *mcp.ClientOptions) {
	o.Capabilities = clientCapabilities()
	o.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		callers, resume := in.m.gw.inFlight(s, r.Session)
		defer resume()
		return in.elicit(ctx, s.name(), callers, r.Params)
	}
	o.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		callers, resume := in.m.gw.inFlight(s, r.Session)
		defer resume()
		return in.sample(ctx, s.name(), callers, r.Params)
	}
}

// rootsMiddleware answers a server's roots/list (the go-sdk's client
// would answer its one list for every app).
func (in *inputs) rootsMiddleware(s *server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "roots/list" {
				return next(ctx, method, req)
			}
			cs, _ := req.GetSession().(*mcp.ClientSession)
			callers, resume := in.m.gw.inFlight(s, cs)
			defer resume()
			return in.roots(ctx, s.name(), callers)
		}
	}
}

// appOf is the app that caused a request: the one app whose calls are in
// flight; nil when there is none or more than one.
func (in *inputs) appOf(callers []relay.Caller) *gateway.App {
	if len(callers) != 1 || in.gw == nil {
		return nil
	}
	g := in.gw()
	if g == nil {
		return nil
	}
	return g.App(callers[0].ID)
}

// callerApp names the app for a question ("" when it cannot be told).
func callerApp(callers []relay.Caller) string {
	if len(callers) == 1 {
		if callers[0].App != "" {
			return callers[0].App
		}
		return callers[0].Conn
	}
	return ""
}

func (in *inputs) elicit(ctx context.Context, server string, callers []relay.Caller, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p == nil {
		p = &mcp.ElicitParams{}
	}
	mode := p.Mode
	if mode == "" {
		mode = hostapi.InputForm
	}
	if app := in.appOf(callers); app != nil && canElicit(app.Capabilities(), mode) {
		return app.Elicit(ctx, p)
	}
	return in.ask(ctx, server, callerApp(callers), mode, p)
}

// canElicit reports whether an app's capabilities take an elicitation of
// mode (an empty elicitation capability is the form mode's).
func canElicit(c *mcp.ClientCapabilities, mode string) bool {
	if c == nil || c.Elicitation == nil {
		return false
	}
	e := c.Elicitation
	if mode == hostapi.InputURL {
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}

func (in *inputs) sample(ctx context.Context, server string, callers []relay.Caller, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	app := in.appOf(callers)
	if app != nil {
		if pr := app.Profile(); pr != nil && pr.Sampling != "" {
			for _, a := range in.gw().Apps() {
				if a.Name == pr.Sampling && a.Sees(server) && canSample(a.Capabilities()) {
					return a.CreateMessage(ctx, p)
				}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
				"Switchboard has no model of its own: the profile of this call's app names %q to answer sampling requests, and no connected app of that name that sees server %q declared sampling: open that app, or change the profile's \"sampling\"", pr.Sampling, server)}
		}
		if canSample(app.Capabilities()) {
			return app.CreateMessage(ctx, p)
		}
	}
	who := "the app that made this call"
	switch {
	case len(callers) > 1:
		who = "several apps' calls were in flight, so the app that made this call cannot be told, and it"
	case len(callers) == 0:
		who = "no app's call was in flight, so no app"
	case app != nil && app.Name != "":
		who = fmt.Sprintf("the app that made this call (%s)", app.Name)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
		"Switchboard has no model of its own to answer server %q's sampling request, and %s declared no sampling: use an app that supports sampling, or name one in the profile's \"sampling\"", server, who)}
}

func canSample(c *mcp.ClientCapabilities) bool { return c != nil && c.Sampling != nil }

func (in *inputs) roots(ctx context.Context, server string, callers []relay.Caller) (*mcp.ListRootsResult, error) {
	app := in.appOf(callers)
	if app != nil {
		if c := app.Capabilities(); c != nil && c.RootsV2 != nil {
			res, err := app.ListRoots(ctx)
			if err != nil || len(res.Roots) > 0 {
				return res, err
			}
			// An app that gives no roots: its profile's, if any.
		}
		if pr := app.Profile(); pr != nil {
			return &mcp.ListRootsResult{Roots: fileRoots(pr.Roots)}, nil
		}
	}
	return &mcp.ListRootsResult{Roots: []*mcp.Root{}}, nil
}

// fileRoots are a profile's folders as roots (file:// URIs).
func fileRoots(paths []string) []*mcp.Root {
	out := []*mcp.Root{}
	for _, p := range paths {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // C:/x
		}
		out = append(out, &mcp.Root{URI: u.String(), Name: filepath.Base(p)})
	}
	return out
}

// ask holds a question for a person until they answer, the server
// withdraws it (ctx), or QuestionTimeout passes.
func (in *inputs) ask(ctx context.Context, server, app, mode string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	log := in.m.log.With("server", server)
	q := &question{answer: make(chan *mcp.ElicitResult, 1)}
	q.req = hostapi.InputRequest{Server: server, App: app, Mode: mode, Message: p.Message, Since: time.Now()}
	q.req.Deadline = q.req.Since.Add(QuestionTimeout)
	switch mode {
	case hostapi.InputURL:
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			log.Warn("a server's URL request was declined: its URL is not an http(s) address", "url", p.URL)
			return &mcp.ElicitResult{Action: hostapi.ActionDecline}, nil
		}
		q.req.URL, q.req.URLHost = p.URL, u.Hostname()
	default:
		schema, _ := json.Marshal(p.RequestedSchema)
		fields, err := elicit.Fields(schema)
		if err != nil {
			log.Warn("a server's question was declined: its form cannot be shown", "error", err)
			return &mcp.ElicitResult{Action: hostapi.ActionDecline}, nil
		}
		q.req.Schema, q.req.Fields, q.fields = schema, fields, fields
	}
	if in.askers == nil || in.askers() == 0 {
		log.Warn("a server asked the user a question and no one can answer it (no tray, window or 'switchboard requests -f'); it was cancelled", "message", p.Message)
		return &mcp.ElicitResult{Action: hostapi.ActionCancel}, nil
	}
	in.mu.Lock()
	n := 0
	for _, w := range in.waiting {
		if w.req.Server == server {
			n++
		}
	}
	if n >= maxWaitingPerServer {
		in.mu.Unlock()
		log.Warn("a server asked the user more questions at once than are shown; this one was cancelled", "waiting", n, "message", p.Message)
		return &mcp.ElicitResult{Action: hostapi.ActionCancel}, nil
	}
	in.seq++
	q.req.ID = "q" + strconv.Itoa(in.seq)
	in.waiting = append(in.waiting, q)
	in.mu.Unlock()
	in.publish()
	defer func() {
		in.mu.Lock()
		in.waiting = slices.DeleteFunc(in.waiting, func(w *question) bool { return w == q })
		in.mu.Unlock()
		in.publish()
	}()
	t := time.NewTimer(time.Until(q.req.Deadline))
	defer t.Stop()
	select {
	case a := <-q.answer:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		log.Warn("no one answered a server's question in time; it was cancelled", "id", q.req.ID, "after", QuestionTimeout)
		return &mcp.ElicitResult{Action: hostapi.ActionCancel}, nil
	}
}

// publish sends the waiting set; pubMu orders the sends, so that the
// last set sent is the current one (two questions that change at once
// would otherwise race, and a stale set could come last).
func (in *inputs) publish() {
	if in.changed != nil {
		in.pubMu.Lock()
		in.changed(in.list())
		in.pubMu.Unlock()
	}
}

// list returns the waiting questions, oldest first.
func (in *inputs) list() []hostapi.InputRequest {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]hostapi.InputRequest, 0, len(in.waiting))
	for _, q := range in.waiting {
		out = append(out, q.req)
	}
	return out
}

// answer answers a waiting question: a form's values are checked against
// its fields, every problem at once.
func (in *inputs) answer(p hostapi.AnswerParams) error {
	in.mu.Lock()
	var q *question
	for _, w := range in.waiting {
		if w.req.ID == p.ID {
			q = w
		}
	}
	in.mu.Unlock()
	if q == nil {
		return &hostapi.Error{Code: hostapi.CodeNotFound, Message: fmt.Sprintf("no question %q is waiting (answered, withdrawn by its server, or timed out): list them with 'switchboard requests'", p.ID)}
	}
	res := &mcp.ElicitResult{Action: p.Action}
	switch p.Action {
	case hostapi.ActionAccept:
		if q.req.Mode == hostapi.InputForm {
			content, problems := elicit.Check(q.fields, p.Content)
			if len(problems) > 0 {
				msgs := make([]string, len(problems))
				for i, pr := range problems {
					msgs[i] = pr.Key + " " + pr.Message
					if pr.Key == "" {
						msgs[i] = pr.Message
					}
				}
				return &hostapi.Error{Code: hostapi.CodeBadRequest, Message: fmt.Sprintf("the answer to question %s was not sent: %s", p.ID, strings.Join(msgs, "; ")), Problems: problems}
			}
			res.Content = content
		}
	case hostapi.ActionDecline, hostapi.ActionCancel:
	default:
		return &hostapi.Error{Code: hostapi.CodeBadRequest, Message: fmt.Sprintf("%q is not an answer: use %q, %q or %q", p.Action, hostapi.ActionAccept, hostapi.ActionDecline, hostapi.ActionCancel)}
	}
	select {
	case q.answer <- res:
		return nil
	default:
		return &hostapi.Error{Code: hostapi.CodeNotFound, Message: fmt.Sprintf("question %s was answered already", p.ID)}
	}
}

// inFlight are the callers of the calls in flight on session cs of server
// s, and a function that ends the pause of their clock (see
// relay.Pause); none when the session has no relay.
func (b *gatewayBackend) inFlight(s *server, cs *mcp.ClientSession) ([]relay.Caller, func()) {
	var conn relay.Conn
	b.mu.Lock()
	if sc := b.sessions[cs]; sc != nil {
		conn = sc
	}
	b.mu.Unlock()
	if conn == nil && s.sup != nil && s.sup.Session() == cs {
		if c := s.sup.Conn(); c != nil {
			conn = c
		}
	}
	b.mu.Lock()
	r := b.relays[conn]
	b.mu.Unlock()
	if r == nil {
		return nil, func() {}
	}
	return r.Callers(), r.Pause()
}
