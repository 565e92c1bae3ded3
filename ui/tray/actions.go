package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// HostOptions configure [HostActions].
type HostOptions struct {
	// Open shows the window (nil: the item is disabled).
	Open func()
	// ShowLogs shows a server's logs (nil: Open).
	ShowLogs func(name string)
	// Review shows the window's review of a server's held tools (nil:
	// Open).
	Review func(name string)
	// Confirm asks the user a yes/no question and calls answer with the
	// reply. It is called off the UI thread and may answer on any
	// goroutine (nil: a small window of the tray's own, on the UI thread).
	Confirm func(question string, answer func(yes bool))
	// Quit quits the app, from any goroutine (nil: the Fyne app's Quit, on
	// its UI thread).
	Quit func()
	// Detach is called just before the app quits, after host.stop was
	// sent: it must stop the live view (cancel its Run), so that the view
	// does not start a new host once this one is gone.
	Detach func()
	// StopService stops the background service through the OS service
	// manager and returns when it has stopped (nil: host.stop through the
	// API, which a manager set to restart the host may undo).
	StopService func() error
	// OnError reports a failed action (default: a desktop notification,
	// [Notify]).
	OnError func(title string, err error)
	// OpenURL opens a page in the browser (nil: the Fyne app's OpenURL).
	OpenURL func(*url.URL) error
	// Timeout bounds each call to the host (default 30 s).
	Timeout time.Duration
}

// HostActions returns the menu's actions, carried out through the host's
// API on live: servers.start, servers.stop and servers.restart with
// [hostapi.NameParams] (Start all and Stop all with All set), and Quit as
// [QuitPlan] decides: host.stop when the host was started on demand, then
// the app quits. The calls run off the
// UI thread; a failure is reported through OnError.
//
// Stop background service stops the service through StopService (the OS
// service manager), or host.stop without one, and quits the tray, asking
// first like Quit when AI apps are connected.
func HostActions(live *client.Live, app fyne.App, o HostOptions) Actions {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.OnError == nil {
		o.OnError = func(title string, err error) { Notify(app, fyne.NewNotification(title, err.Error())) }
	}
	if o.Confirm == nil {
		o.Confirm = func(q string, answer func(bool)) {
			fyne.Do(func() { ConfirmWindow(app, q, answer) })
		}
	}
	if o.Quit == nil {
		o.Quit = func() { fyne.Do(app.Quit) }
	}
	if o.ShowLogs == nil && o.Open != nil {
		open := o.Open
		o.ShowLogs = func(string) { open() }
	}
	if o.Review == nil && o.Open != nil {
		open := o.Open
		o.Review = func(string) { open() }
	}
	h := &hostActions{live: live, app: app, o: o}
	a := Actions{
		Start: func(name string) {
			h.call(name, "start", func(ctx context.Context) error { return live.Start(ctx, name) })
		},
		Stop: func(name string) {
			h.call(name, "stop", func(ctx context.Context) error { return live.Stop(ctx, name, false) })
		},
		Restart: func(name string) {
			h.call(name, "restart", func(ctx context.Context) error { return live.Restart(ctx, name) })
		},
		SignIn:   h.signIn,
		ShowLogs: o.ShowLogs,
		Review:   o.Review,
		Open:     o.Open,
		StartAll: func() { h.call("", "start", live.StartAll) },
		StopAll: func() {
			h.call("", "stop", func(ctx context.Context) error { return live.StopAll(ctx, false) })
		},
		Decide: func(id, decision string) {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
				defer cancel()
				if err := live.Decide(ctx, id, decision); err != nil {
					o.OnError("Switchboard could not answer the waiting call", err)
				}
			}()
		},
		StopService: func() { h.quit(true) },
		Quit:        func() { h.quit(false) },
	}
	return a
}

type hostActions struct {
	live *client.Live
	app  fyne.App
	o    HostOptions
}

// call runs a server method in the background; verb and name word the
// error's title.
func (h *hostActions) call(name, verb string, method func(context.Context) error) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.o.Timeout)
		defer cancel()
		if err := method(ctx); err != nil {
			what := "every server"
			if name != "" {
				what = fmt.Sprintf("%q", name)
			}
			h.o.OnError(fmt.Sprintf("Switchboard could not %s %s", verb, what), err)
		}
	}()
}

// quit carries out [QuitPlan]: Quit, or with stopService, Stop background
// service. Whether the host is a service's comes from a fresh host.info.
func (h *hostActions) quit(stopService bool) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.o.Timeout)
		defer cancel()
		var info hostapi.Info
		raw, err := h.live.InfoRaw(ctx)
		if err != nil || json.Unmarshal(raw, &info) != nil {
			// No host to stop (or none that answers): close the tray.
			h.exit()
			return
		}
		info = withAIClients(raw, info)
		stop, ask := QuitPlan(info, stopService)
		if ask == "" {
			h.finish(stop, stopService)
			return
		}
		h.o.Confirm(ask, func(yes bool) {
			if yes {
				go h.finish(stop, stopService)
			}
		})
	}()
}

// withAIClients fills info.AIClients for a host older than the field (a
// tray upgraded while the old host serves on): it counts then every API
// client but this app's one, as trays did before the host could tell AI
// apps apart, so that Quit asks one question too many rather than stop
// servers that AI apps use without asking.
func withAIClients(raw json.RawMessage, info hostapi.Info) hostapi.Info {
	var has struct {
		AIClients *int `json:"aiClients"`
	}
	if json.Unmarshal(raw, &has) == nil && has.AIClients == nil {
		info.AIClients = max(info.Clients-1, 0)
	}
	return info
}

// finish stops the host if asked (through the service manager when
// stopService and the app gave one), then quits the app.
func (h *hostActions) finish(stopHost, stopService bool) {
	if stopHost {
		var err error
		if stopService && h.o.StopService != nil {
			err = h.o.StopService()
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), h.o.Timeout)
			err = h.live.StopHost(ctx)
			cancel()
		}
		if err != nil && !errors.Is(err, client.ErrNotConnected) && h.hostAnswers() {
			// The app stays: quitting now would leave the servers running
			// with no way back to them but a new tray.
			h.o.OnError("Switchboard could not stop its host", err)
			return
		}
	}
	h.exit()
}

// hostAnswers reports whether the host still answers (host.stop may fail
// because the host went away while it answered).
func (h *hostActions) hostAnswers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := h.live.Info(ctx)
	return err == nil
}

func (h *hostActions) exit() {
	if h.o.Detach != nil {
		h.o.Detach()
	}
	h.o.Quit()
}

// ConfirmWindow asks a question in a small window of its own (the tray
// may have no window open to host a dialog). Closing it answers no.
func ConfirmWindow(app fyne.App, question string, answer func(bool)) {
	w := app.NewWindow("Quit Switchboard?")
	once := false
	reply := func(yes bool) {
		if once {
			return
		}
		once = true
		w.Close()
		answer(yes)
	}
	msg := widget.NewLabel(question)
	msg.Wrapping = fyne.TextWrapWord
	quit := widget.NewButton(LabelQuitAndStop, func() { reply(true) })
	quit.Importance = widget.DangerImportance
	cancel := widget.NewButton("Cancel", func() { reply(false) })
	w.SetContent(container.NewBorder(nil, container.NewHBox(cancel, quit), nil, nil, msg))
	w.SetCloseIntercept(func() { reply(false) })
	w.Resize(fyne.NewSize(420, 160))
	w.CenterOnScreen()
	w.Show()
}
