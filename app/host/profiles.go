package host

import (
	"maps"
	"slices"

	"github.com/switchboard-mcp/switchboard/app/config"
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

// ProfileNames implements [gateway.ProfileNamer]: the names of the
// profiles of the config in force, for a "did you mean".
func (b *gatewayBackend) ProfileNames() []string {
	ps := b.profiles.Load()
	if ps == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(*ps))
}

// setProfiles keeps the profiles of the config in force. A change of
// profiles starts or stops no server: the manager is given only the
// servers' entries (ServerConfigs); the gateway re-resolves every
// client's profile on the rebuild that follows.
func (b *gatewayBackend) setProfiles(f *config.File) {
	ps := f.Profiles()
	b.profiles.Store(&ps)
}
