package tray

import (
	_ "embed"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Level is the overall health the tray icon shows.
type Level int

// The levels, from the icon's point of view. The states of
// [hostapi.ServerStatus] map onto them by their [hostapi.Severity], as
// [Health] says, so that the icon and the window's colours agree.
const (
	// LevelNone: not connected to a host, no servers, or none meant to run
	// (every one stopped by the user or disabled). A grey ring.
	LevelNone Level = iota
	// LevelRunning: every server meant to run is running. A green dot.
	LevelRunning
	// LevelStarting: some server is on its way (starting, restarting after
	// a crash, stopping) or waits for a secret the user has to store
	// (hostapi.SeverityWarning: it has not failed and starts by itself
	// once the secret is there), and none failed. An amber dot.
	LevelStarting
	// LevelFailed: some server failed for good, or its config entry has
	// problems. A red dot.
	LevelFailed
)

// String names the level (for logs and tests).
func (l Level) String() string {
	switch l {
	case LevelRunning:
		return "running"
	case LevelStarting:
		return "starting"
	case LevelFailed:
		return "failed"
	default:
		return "none"
	}
}

// Health is the overall level of a snapshot. Servers the user stopped or
// disabled do not count: they are not meant to run. A failure outranks a
// start in progress, which outranks running.
func Health(s client.Snapshot) Level {
	if !s.Connected {
		return LevelNone
	}
	running, busy, failed := 0, 0, 0
	for _, st := range s.Servers {
		if st.Broken {
			failed++ // it retries, but no attempt can succeed: red, as the header says "broken"
			continue
		}
		switch st.State.Severity() {
		case hostapi.SeverityOK:
			running++
		case hostapi.SeverityProgress, hostapi.SeverityWarning:
			busy++
		case hostapi.SeverityFailed:
			failed++
		}
	}
	switch {
	case failed > 0:
		return LevelFailed
	case busy > 0:
		return LevelStarting
	case running > 0:
		return LevelRunning
	default:
		return LevelNone
	}
}

// The icons, drawn by icons/gen.go (go generate ./ui/tray/).
//
//go:generate sh -c "cd icons && go run gen.go"
var (
	//go:embed icons/running.png
	iconRunning []byte
	//go:embed icons/starting.png
	iconStarting []byte
	//go:embed icons/failed.png
	iconFailed []byte
	//go:embed icons/none.png
	iconNone []byte

	icons = map[Level]fyne.Resource{
		LevelRunning:  fyne.NewStaticResource("switchboard-running.png", iconRunning),
		LevelStarting: fyne.NewStaticResource("switchboard-starting.png", iconStarting),
		LevelFailed:   fyne.NewStaticResource("switchboard-failed.png", iconFailed),
		LevelNone:     fyne.NewStaticResource("switchboard-none.png", iconNone),
	}
)

// Icon returns the tray icon of a level: a switchboard glyph (a dark panel
// with a light rim, so it shows on dark and light panels) with a coloured
// status dot. The resources are PNGs (64×64).
func Icon(l Level) fyne.Resource {
	if r, ok := icons[l]; ok {
		return r
	}
	return icons[LevelNone]
}
