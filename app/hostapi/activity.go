package hostapi

import "time"

// ActivityQueryParams select records, as app/activity's Filter: zero
// fields select everything. Tool is a glob on the tool name or URI (*, ?,
// [...], case-sensitive). Limit 0 is the host's default (1000); at most
// 10000 are returned.
type ActivityQueryParams struct {
	Server     string    `json:"server,omitempty"`
	App        string    `json:"app,omitempty"`
	Tool       string    `json:"tool,omitempty"`
	Since      time.Time `json:"since,omitzero"`
	Until      time.Time `json:"until,omitzero"`
	ErrorsOnly bool      `json:"errorsOnly,omitempty"`
	AfterID    int64     `json:"afterId,omitempty"` // records with a greater ID (following)
	Limit      int       `json:"limit,omitempty"`
}

// ActivityQueryResult is the records, newest first, and the log's state.
type ActivityQueryResult struct {
	Records []ActivityRecord `json:"records"`
	ActivityStatus
}

// ActivityRecord is one request an app made to a server.
type ActivityRecord struct {
	ID     int64     `json:"id"`
	Time   time.Time `json:"time"`
	App    string    `json:"app"`
	Conn   string    `json:"conn"`
	Server string    `json:"server"`
	Kind   string    `json:"kind"`   // tools/call, resources/read, prompts/get, completion/complete
	Target string    `json:"target"` // the tool or prompt name, or the URI
	// ArgBytes and ResultBytes are sizes; Preview is the arguments' first
	// KiB, secrets redacted, valid JSON ("" when none).
	ArgBytes    int    `json:"argBytes"`
	ResultBytes int    `json:"resultBytes"`
	Preview     string `json:"preview"`
	// PreviewCut says whether Preview holds only part of the arguments
	// (true) or all of them (false); absent for records an earlier
	// version wrote, which did not say.
	PreviewCut *bool `json:"previewCut,omitempty"`
	// DurationMs is the duration in milliseconds (fractional).
	DurationMs float64 `json:"durationMs"`
	// Outcome: ok, tool_error, protocol_error (with Code), cancelled,
	// timed_out, denied.
	Outcome  string `json:"outcome"`
	Code     int    `json:"code,omitempty"`
	Approval string `json:"approval,omitempty"`
	// WaitMs is how long the request waited for its server before it was
	// sent (fractional milliseconds): a sleeping server's start, or a
	// restart it was held through; 0 when it went at once.
	WaitMs float64 `json:"waitMs,omitempty"`
}

// ActivityCountsParams bound the window of activity.counts; a zero Since
// is the last day.
type ActivityCountsParams struct {
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
}

// ActivityCountsResult is the per-server counts over the window.
type ActivityCountsResult struct {
	Since   time.Time        `json:"since"`
	Servers []ActivityCounts `json:"servers"`
	ActivityStatus
}

// ActivityCounts sums one server's records.
type ActivityCounts struct {
	Server string  `json:"server"`
	Calls  int     `json:"calls"`
	Errors int     `json:"errors"` // every outcome but ok
	P50Ms  float64 `json:"p50Ms"`  // the median duration, milliseconds
}

// ActivityStatus is the state of the host's activity log.
type ActivityStatus struct {
	// On says the log records (the config does not turn it off and it
	// opened).
	On   bool   `json:"on"`
	Path string `json:"path,omitempty"` // the database file
	// Dropped counts the records lost since the host started (a full
	// queue, a failed write).
	Dropped uint64 `json:"dropped,omitempty"`
	// Problem is why the log does not record although the config wants
	// it: the host runs without it.
	Problem string `json:"problem,omitempty"`
}
