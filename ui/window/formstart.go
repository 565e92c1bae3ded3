package window

import (
	"encoding/json"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The Settings' Start row (issue 27 item 15, docs/sleep.md): whether the
// server runs from the host's start or sleeps until an app calls it, and
// for the latter how long it may go without a call (idleStop, the option
// table's row, shown here rather than under Advanced).

// idleStopKey is the option the Start row shows.
const idleStopKey = "idleStop"

// The Start choice's labels.
const (
	startAlwaysLabel   = "Always: from the host's start"
	startOnDemandLabel = "On first use: sleeps until an app calls it"
)

func startLabel(mode string) string {
	if mode == config.StartOnDemand {
		return startOnDemandLabel
	}
	return startAlwaysLabel
}

func startMode(label string) string {
	if label == startOnDemandLabel {
		return config.StartOnDemand
	}
	return config.StartAlways
}

// initialStart is how the entry starts as the form opens: its own
// "start", else on demand when the host shows it sleeping (the file's
// defaults say so), else always.
func initialStart(s *config.Server, st *hostapi.ServerStatus) string {
	switch {
	case s.Start != "":
		return s.Start
	case st != nil && st.State == hostapi.StateSleeping:
		return config.StartOnDemand
	}
	return config.StartAlways
}

// newStartRow builds the Start choice and the idle stop under it (the
// entry of the option idleStop, f.limitEntries).
func (f *serverForm) newStartRow(s *config.Server) fyne.CanvasObject {
	f.startInit = initialStart(s, f.status())
	o, _ := config.OptionByKey(idleStopKey)
	idle := container.NewVBox(widget.NewLabel(o.Label), f.limitEntries[idleStopKey], hintLabel(o.Help), reserveLine(f.errs[idleStopKey]))
	f.start = widget.NewSelect([]string{startAlwaysLabel, startOnDemandLabel}, func(label string) {
		if startMode(label) == config.StartOnDemand {
			idle.Show()
		} else {
			idle.Hide()
		}
		if f.obj != nil {
			f.changed("start")
		}
	})
	f.start.SetSelected(startLabel(f.startInit))
	errL, errObj := reservedError()
	f.errs["start"] = errL
	f.idleBox = idle
	f.startRow = container.NewVBox(f.start, idle, errObj)
	return f.startRow
}

// applyStart writes the choice into the entry e: "start" only when it
// differs from how the entry started as the form opened (an entry that
// follows the file's defaults keeps following them).
func (f *serverForm) applyStart(e map[string]json.RawMessage) {
	if f.start == nil {
		return
	}
	if m := startMode(f.start.Selected); m != f.startInit {
		e["start"] = marshal(m)
	}
}
