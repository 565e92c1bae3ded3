package host

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// appConfigsEvery is how often the host reads the connected AI apps'
// configs again for entries Switchboard did not write (a few small files:
// those `clients connect` and `clients import` recorded).
var appConfigsEvery = 30 * time.Second

// appConfigs is the host's latest check of the connected apps' configs.
type appConfigs struct {
	alerts []hostapi.AppConfigAlert // guarded by Host.mu
}

// checkAppConfigs reads the connected apps' configs (aiapps.CheckAll, the
// record in the state directory) and returns what Switchboard did not
// write there; nil without a state directory.
func (h *Host) checkAppConfigs() []hostapi.AppConfigAlert {
	if h.opts.StateDir == "" {
		return nil
	}
	found, err := aiapps.CheckAll(aiapps.Env{GOOS: runtime.GOOS, Getenv: os.Getenv}, h.opts.StateDir)
	if err != nil {
		h.log.Warn("cannot check the AI apps' configs", "error", err)
		return nil
	}
	var out []hostapi.AppConfigAlert
	for _, f := range found {
		out = append(out, hostapi.AppConfigAlert{App: f.AppID, AppName: f.AppName, Config: f.Config, Entry: f.Entry,
			Runs: f.Runs, Changed: f.Changed, Bridge: f.Bridge, Line: f.Short(), Message: f.String()})
	}
	return out
}

// refreshAppConfigs checks the apps' configs and, when the result
// changed, keeps it for host.info and publishes it (TopicAppConfigs).
func (h *Host) refreshAppConfigs() {
	alerts := h.checkAppConfigs()
	h.mu.Lock()
	same := reflect.DeepEqual(alerts, h.apps.alerts)
	h.apps.alerts = alerts
	h.mu.Unlock()
	if !same {
		for _, a := range alerts {
			h.log.Warn("an AI app's config has an entry Switchboard did not write", "app", a.App, "entry", a.Entry, "config", a.Config)
		}
		_ = h.srv.Publish(hostapi.TopicAppConfigs, alerts)
	}
}

// watchAppConfigs checks the apps' configs every period until ctx ends.
// The period is read by the caller, before the goroutine starts: a test
// that sets appConfigsEvery then races no host still running.
func (h *Host) watchAppConfigs(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.refreshAppConfigs()
		}
	}
}
