package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// ActivityQuery returns the activity log's records that p selects, newest
// first, with the log's state (activity.query).
func (m Methods) ActivityQuery(ctx context.Context, p hostapi.ActivityQueryParams) (hostapi.ActivityQueryResult, error) {
	return Call(ctx, m, hostapi.MethodActivityQuery, p)
}

// ActivityCounts returns per-server calls, errors and median durations
// since p.Since (zero: the last day), with the log's state
// (activity.counts).
func (m Methods) ActivityCounts(ctx context.Context, p hostapi.ActivityCountsParams) (hostapi.ActivityCountsResult, error) {
	return Call(ctx, m, hostapi.MethodActivityCounts, p)
}
