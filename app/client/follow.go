package client

import (
	"context"
	"encoding/json"
)

// followSet delivers a topic whose events each carry a whole set ([]T)
// each time it changes, until ctx ends or the connection does; then the
// channel is closed. An event that does not decode is skipped.
func followSet[T any](ctx context.Context, c *Conn, topic string) (<-chan []T, error) {
	events, err := c.c.Subscribe(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := make(chan []T, 16)
	go func() {
		defer close(out)
		for ev := range events {
			var l []T
			if json.Unmarshal(ev.Data, &l) != nil {
				continue
			}
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
