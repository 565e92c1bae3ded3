package client

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// BundleInspect returns a bundle file's card as JSON (bundles.inspect):
// decode it with app/install's BundleCard. path is absolute; values are
// the user_config values typed so far (no sensitive one is needed).
func (m Methods) BundleInspect(ctx context.Context, path, name string, values map[string][]string) (json.RawMessage, error) {
	r, err := Call(ctx, m, hostapi.MethodBundlesInspect, hostapi.BundleInspectParams{Path: path, Name: name, Values: values})
	return r.Card, err
}

// BundleInstall installs a bundle file as a server (bundles.install):
// its sensitive values travel only in this request, to the keyring.
func (m Methods) BundleInstall(ctx context.Context, p hostapi.BundleInstallParams) (hostapi.BundleInstallResult, error) {
	return Call(ctx, m, hostapi.MethodBundlesInstall, p)
}
