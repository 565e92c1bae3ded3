package hostapi

import (
	"encoding/json"
	"time"
)

// Approvals (issue 14): a call whose policy says "ask" waits in the host
// until a person decides (its methods: approvals.list, approvals.decide).
// Its event:
const (
	// TopicApprovals carries the whole set of waiting requests
	// ([]Approval, oldest first) each time it changes. A connection
	// subscribed to it by name (not "*") is an approver: while none is
	// attached (a headless host with no window, tray or 'switchboard
	// approvals -f'), a call that would ask is denied at once.
	TopicApprovals = "approvals"
)

// The decisions of approvals.decide.
const (
	DecideOnce   = "once"   // allow this call
	DecideApp    = "app"    // allow this tool for the app's connection until it disconnects
	DecideAlways = "always" // allow it now and from now on: the server's policy gets the tool as "allow"
	DecideDeny   = "deny"   // refuse it: the app gets a tool error saying the user denied it
)

// MaxApprovalArguments is the largest arguments an [Approval] carries; a
// larger call carries their size only.
const MaxApprovalArguments = 64 << 10

// Approval is a call waiting for the user.
type Approval struct {
	ID     string `json:"id"`
	Server string `json:"server"`
	Tool   string `json:"tool"` // the server's own name of the tool; for another request, what it names
	// Kind is the request, when it is not a tools/call: "resources/read"
	// (Tool is the resource's URI), "prompts/get" (the prompt's name) or
	// "completion/complete" (the prompt or resource template it completes).
	Kind string `json:"kind,omitempty"`
	App  string `json:"app,omitempty"`  // the app's clientInfo name
	Conn string `json:"conn,omitempty"` // its connection: "bridge pid N", "http"
	// Arguments are the call's, as the app sent them; omitted over
	// MaxApprovalArguments (ArgumentBytes says how large they are).
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	ArgumentBytes int             `json:"argumentBytes"`
	// Why is why it asks: "the policy of the tool is ask", "the tool says
	// it is destructive".
	Why      string    `json:"why"`
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline"` // denied if no one decides by then
}

// DecideParams decide a waiting request: Decision is one of the Decide*
// constants.
type DecideParams struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
}
