package service

import (
	"context"
	"errors"
	"time"

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

// stopHost asks the host on sock to stop (it stops every server first) and
// waits until it is gone or timeout passes. No host is no error.
func stopHost(ctx context.Context, sock string, timeout time.Duration) error {
	c, err := client.Dial(ctx, sock)
	if errors.Is(err, api.ErrNoHost) {
		return nil
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.StopHost(ctx); err != nil {
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != api.CodeShuttingDown {
			return err
		}
	}
	select {
	case <-c.Done():
		return nil
	case <-time.After(timeout):
		return errors.New("the host did not stop in time")
	case <-ctx.Done():
		return ctx.Err()
	}
}
