package cli

import (
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/api"
)

type apiEvent struct {
	topic string
	data  json.RawMessage
}

func adapt(ch <-chan api.Event) <-chan apiEvent {
	out := make(chan apiEvent, 64)
	go func() {
		defer close(out)
		for ev := range ch {
			out <- apiEvent{topic: ev.Topic, data: ev.Data}
		}
	}()
	return out
}
