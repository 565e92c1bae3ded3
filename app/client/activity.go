package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// ActivityQuery returns the activity log's records that p selects, newest
// first, with the log's state (activity.query).
func (m Methods) ActivityQuery(ctx context.Context, p hostapi.ActivityQueryParams) (hostapi.ActivityQueryResult, error) {
	var r hostapi.ActivityQueryResult
	err := m.call(ctx, hostapi.MethodActivityQuery, p, &r)
	return r, err
}

// ActivityCounts returns per-server calls, errors and median durations
// since p.Since (zero: the last day), with the log's state
// (activity.counts).
func (m Methods) ActivityCounts(ctx context.Context, p hostapi.ActivityCountsParams) (hostapi.ActivityCountsResult, error) {
	var r hostapi.ActivityCountsResult
	err := m.call(ctx, hostapi.MethodActivityCounts, p, &r)
	return r, err
}
