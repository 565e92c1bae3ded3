package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ActivitySettings are the options of the host's activity log (issue 14):
// the optional top-level "activity" key of the file, either a switch or an
// object.
//
//	"activity": false
//	"activity": {"retainDays": 7, "maxBytes": 100000000}
//
// No key (or null, true, {}) keeps the log on with its defaults (30 days,
// 200 MB).
type ActivitySettings struct {
	Off        bool  // "activity": false
	RetainDays int   // 0: the default
	MaxBytes   int64 // 0: the default
}

// activityKeys are the keys of the "activity" object.
const activityKeys = `"retainDays", "maxBytes"`

// Activity returns the file's activity log settings; a malformed
// "activity" key is an error naming the key and the remedy, and yields the
// default settings (the log on), so that a typo never turns it off.
func (f *File) Activity() (ActivitySettings, error) {
	var a ActivitySettings
	raw, ok := f.extra["activity"]
	if !ok || isNull(raw) {
		return a, nil
	}
	switch strings.TrimSpace(string(raw)) {
	case "false":
		return ActivitySettings{Off: true}, nil
	case "true":
		return a, nil
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		return ActivitySettings{}, Problem{Key: "activity", Message: fmt.Sprintf(`%s is neither a switch nor an object: write false to turn the activity log off, or {"retainDays": 30, "maxBytes": 200000000}`, rawString(raw))}
	}
	for _, m := range ms {
		switch m.Key {
		case "retainDays":
			var d int
			if err := json.Unmarshal(m.Value, &d); err != nil || d < 1 || d > 36500 {
				return ActivitySettings{}, Problem{Key: "activity.retainDays", Message: fmt.Sprintf("%s is not a number of days: write a whole number from 1 to 36500 (default 30)", rawString(m.Value))}
			}
			a.RetainDays = d
		case "maxBytes":
			var n int64
			if err := json.Unmarshal(m.Value, &n); err != nil || n < 1<<20 {
				return ActivitySettings{}, Problem{Key: "activity.maxBytes", Message: fmt.Sprintf("%s is not a size the log can keep: write a whole number of bytes, at least 1048576 (1 MiB; default 200000000)", rawString(m.Value))}
			}
			a.MaxBytes = n
		}
	}
	return a, nil
}

// activityProblems are the problems of the "activity" key, for the
// [Report]: those that make [File.Activity] fail, and keys it does not
// know.
func (f *File) activityProblems() []Problem {
	if _, err := f.Activity(); err != nil {
		var p Problem
		if errors.As(err, &p) {
			return []Problem{p}
		}
		return []Problem{{Key: "activity", Message: err.Error()}}
	}
	raw, ok := f.extra["activity"]
	if !ok || isNull(raw) {
		return nil
	}
	ms, _, err := decodeObject(raw)
	if err != nil { // a switch
		return nil
	}
	var ps []Problem
	for _, m := range ms {
		if m.Key != "retainDays" && m.Key != "maxBytes" {
			ps = append(ps, Problem{Key: "activity." + m.Key, Message: "is not a known key: the activity log's settings are " + activityKeys})
		}
	}
	return ps
}
