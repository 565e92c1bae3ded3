package host

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The host's side of profiles: the gateway's ProfileSource, kept from the
// config in force, and the profiles.* methods of the API.

// Profile implements [gateway.ProfileSource]: the profile of the config
// in force (set by applyFile before the gateway rebuilds its view).
func (b *gatewayBackend) Profile(name string) *config.Profile {
	ps := b.profiles.Load()
	if ps == nil {
		return nil
	}
	return (*ps)[name]
}

// setProfiles keeps the profiles of the config in force. A change of
// profiles starts or stops no server: the manager is given only the
// servers' entries (ServerConfigs); the gateway re-resolves every
// client's profile on the rebuild that follows.
func (b *gatewayBackend) setProfiles(f *config.File) {
	ps := f.Profiles()
	b.profiles.Store(&ps)
}

// withProfiles adds the profiles.* methods.
func (h *Host) withProfiles(ms api.Methods) api.Methods {
	ms[hostapi.MethodProfiles] = func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
		h.mu.Lock()
		f := h.file
		h.mu.Unlock()
		if f == nil {
			return []hostapi.ProfileInfo{}, nil
		}
		return configedit.ListProfiles(f), nil
	}
	ms[hostapi.MethodProfilePut] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.ProfilePutParams](hostapi.MethodProfilePut, raw)
		if err != nil {
			return nil, err
		}
		return nil, h.change(func(f *config.File) error { return configedit.PutProfile(f, p.Name, p.Profile) })
	}
	ms[hostapi.MethodProfileRemove] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.NameParams](hostapi.MethodProfileRemove, raw)
		if err != nil {
			return nil, err
		}
		if p.Name == "" {
			return nil, api.Errorf(api.CodeBadRequest, "%s needs a profile name", hostapi.MethodProfileRemove)
		}
		return nil, h.change(func(f *config.File) error { return configedit.RemoveProfile(f, p.Name) })
	}
	ms[hostapi.MethodProfileRename] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.RenameParams](hostapi.MethodProfileRename, raw)
		if err != nil {
			return nil, err
		}
		if p.Name == "" || p.NewName == "" {
			return nil, api.Errorf(api.CodeBadRequest, "%s needs the profile's name and its new name", hostapi.MethodProfileRename)
		}
		return nil, h.change(func(f *config.File) error { return configedit.RenameProfile(f, p.Name, p.NewName) })
	}
	return ms
}
