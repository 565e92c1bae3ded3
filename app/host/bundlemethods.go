package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// The bundles' methods (docs/bundles.md, "In the window and the host
// API"): inspect is app/install's InspectBundle (nothing kept), install
// its AddBundle over the host's own config changes and keyring, as
// registry.add is Add, then the same first start.

// bundleFile checks a bundle's path as a client gave it: absolute (the
// host's working directory is not the client's) and a file.
func bundleFile(method, path string) (string, error) {
	if path == "" || !filepath.IsAbs(path) {
		return "", api.Errorf(api.CodeBadRequest, "%s needs the bundle file's absolute path (got %q)", method, path)
	}
	path = filepath.Clean(path)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", &hostapi.Error{Code: hostapi.CodeNotFound, Message: fmt.Sprintf("no bundle file %s: give the path of a .mcpb file", path)}
	case err != nil:
		return "", fmt.Errorf("the bundle file %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return "", api.Errorf(api.CodeBadRequest, "%s is not a file: give the path of a .mcpb file", path)
	}
	return path, nil
}

func (h *Host) bundlesInspect(ctx context.Context, _ *api.ConnInfo, p hostapi.BundleInspectParams) (hostapi.BundleInspectResult, error) {
	path, err := bundleFile(hostapi.MethodBundlesInspect.Name, p.Path)
	if err != nil {
		return hostapi.BundleInspectResult{}, err
	}
	c, err := install.InspectBundle(ctx, path, install.InspectOptions{Values: p.Values, Local: p.Name, LookPath: h.serversLookPath})
	if err != nil {
		return hostapi.BundleInspectResult{}, err
	}
	b, err := json.Marshal(c)
	return hostapi.BundleInspectResult{Card: b}, err
}

func (h *Host) bundlesInstall(ctx context.Context, ci *api.ConnInfo, p hostapi.BundleInstallParams) (hostapi.BundleInstallResult, error) {
	path, err := bundleFile(hostapi.MethodBundlesInstall.Name, p.Path)
	if err != nil {
		return hostapi.BundleInstallResult{}, err
	}
	if h.opts.StateDir == "" {
		return hostapi.BundleInstallResult{}, errors.New("this host has no state directory to unpack bundles in (HOME or XDG_STATE_HOME unset?)")
	}
	added, err := install.AddBundle(ctx, hostTarget{h, ci}, install.BundleRequest{File: path, Local: p.Name, Values: p.Values, Insist: p.Insist,
		StateDir: h.opts.StateDir, LookPath: h.serversLookPath,
		Sandbox: runtime.GOOS == "linux" && sandbox.Probe().Available()}) // the sandbox its options imply (docs/bundles.md)
	if err != nil {
		return hostapi.BundleInstallResult{}, bundleError(err, h.sensitiveValues(ctx, path, p.Values))
	}
	lk := added.Locked
	h.log.Info("installed a bundle", "server", added.Local, "bundle", lk.Package, "version", lk.Version, "signature", lk.Bundle.Signature)
	res := hostapi.BundleInstallResult{Local: added.Local, Bundle: lk.Package, Version: lk.Version, Signature: lk.Bundle.Signature, Dir: lk.Dir,
		Argv: added.Argv, Sandbox: "none", SandboxWhy: added.SandboxWhy, Unconfined: added.Unconfined, Warnings: added.Warnings, Notes: added.Notes}
	if added.Sandbox != nil {
		res.Sandbox = install.SandboxLine(added.Sandbox)
	}
	for _, s := range added.Secrets {
		res.Secrets = append(res.Secrets, s.Name)
	}
	if added.LockErr != nil {
		res.LockError = added.LockErr.Error()
	}
	if !p.NoStart {
		res.FirstStart = h.firstStart(ctx, added)
	}
	return res, nil
}

// sensitiveValues are the values given for the bundle's sensitive
// options (every value of 4 bytes or more when its card cannot be
// read), the longest
// first, for scrubbing an error's text. AddBundle never writes one in an
// error (a sensitive value is only ever its keyring reference); this is
// the second guard, as registry.add's hidden is.
func (h *Host) sensitiveValues(ctx context.Context, path string, values map[string][]string) []string {
	c, err := install.InspectBundle(ctx, path, install.InspectOptions{LookPath: h.serversLookPath})
	sensitive := map[string]bool{}
	if err == nil {
		for _, o := range c.Options {
			sensitive[o.Key] = o.Sensitive
		}
	}
	var out []string
	for k, vs := range values {
		if err == nil && !sensitive[k] {
			continue // a plain value, or one of no option (never in an error's text)
		}
		for _, v := range vs {
			if len(v) >= 4 || sensitive[k] && v != "" { // unread: not "x" inside every word
				out = append(out, v)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// bundleError is AddBundle's error for a client: a taken name as
// already_exists, the manifest's or the values' problems as bad_request
// with one problem each (its key and its remedy), no value given in the
// text.
func bundleError(err error, values []string) error {
	var ee *install.ExistsError
	if errors.As(err, &ee) {
		return addError(err, values)
	}
	scrub := func(s string) string {
		for _, v := range values {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
		return s
	}
	var ps bundle.Problems
	if errors.As(err, &ps) {
		e := &hostapi.Error{Code: hostapi.CodeBadRequest}
		var ms []string
		for _, p := range ps {
			if p.Warning {
				continue
			}
			e.Problems = append(e.Problems, hostapi.Problem{Key: p.Key, Message: scrub(p.Error()), Fact: scrub(p.FactText())})
			ms = append(ms, scrub(p.Error()))
		}
		head, _, _ := strings.Cut(scrub(err.Error()), "\n")
		e.Message = strings.TrimSuffix(head, ":") + ": " + english.Plural(len(ms), "problem") + ": " + strings.Join(ms, "; ")
		return e
	}
	var he *hostapi.Error
	if errors.As(err, &he) {
		return err
	}
	return errors.New(scrub(err.Error()))
}
