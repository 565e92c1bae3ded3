package client

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Requests returns the servers' questions waiting for the user, oldest
// first (requests.list).
func (m Methods) Requests(ctx context.Context) ([]hostapi.InputRequest, error) {
	return Call(ctx, m, hostapi.MethodRequestsList, hostapi.None{})
}

// Answer answers a waiting question (requests.answer): action is one of
// hostapi.ActionAccept, ActionDecline, ActionCancel; content holds a
// form's values with ActionAccept.
func (m Methods) Answer(ctx context.Context, id, action string, content json.RawMessage) error {
	_, err := Call(ctx, m, hostapi.MethodRequestsAnswer, hostapi.AnswerParams{ID: id, Action: action, Content: content})
	return err
}

// FollowRequests delivers the set of waiting questions each time it
// changes (the requests event), until ctx ends or the connection does;
// then the channel is closed. While it follows, the connection can be
// asked: the host holds a server's question instead of cancelling it.
func (c *Conn) FollowRequests(ctx context.Context) (<-chan []hostapi.InputRequest, error) {
	return followSet[hostapi.InputRequest](ctx, c, hostapi.TopicRequests)
}
