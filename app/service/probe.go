package service

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// RunningHost returns the info of the host that answers on this user's
// socket, or nil when none does.
func RunningHost(ctx context.Context) (*hostapi.Info, error) {
	sock, err := api.DefaultSocketPath()
	if err != nil {
		return nil, err
	}
	return runningHost(ctx, sock)
}

func runningHost(ctx context.Context, sock string) (*hostapi.Info, error) {
	c, err := client.Dial(ctx, sock)
	if errors.Is(err, api.ErrNoHost) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil {
		return nil, err
	}
	return &info, nil
}
