package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Profiles lists the config's profiles, with their problems
// (profiles.list).
func (m Methods) Profiles(ctx context.Context) ([]hostapi.ProfileInfo, error) {
	var out []hostapi.ProfileInfo
	err := m.call(ctx, hostapi.MethodProfiles, nil, &out)
	return out, err
}

// PutProfile adds or replaces a profile (profiles.put).
func (m Methods) PutProfile(ctx context.Context, name string, p hostapi.ProfileEntry) error {
	return m.call(ctx, hostapi.MethodProfilePut, hostapi.ProfilePutParams{Name: name, Profile: p}, nil)
}

// RemoveProfile removes a profile (profiles.remove).
func (m Methods) RemoveProfile(ctx context.Context, name string) error {
	return m.call(ctx, hostapi.MethodProfileRemove, hostapi.NameParams{Name: name}, nil)
}

// RenameProfile renames a profile (profiles.rename).
func (m Methods) RenameProfile(ctx context.Context, name, newName string) error {
	return m.call(ctx, hostapi.MethodProfileRename, hostapi.RenameParams{Name: name, NewName: newName}, nil)
}
