package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Profiles lists the config's profiles, with their problems
// (profiles.list).
func (m Methods) Profiles(ctx context.Context) ([]hostapi.ProfileInfo, error) {
	return Call(ctx, m, hostapi.MethodProfilesList, hostapi.None{})
}

// PutProfile adds or replaces a profile (profiles.put).
func (m Methods) PutProfile(ctx context.Context, name string, p hostapi.ProfileEntry) error {
	_, err := Call(ctx, m, hostapi.MethodProfilesPut, hostapi.ProfilePutParams{Name: name, Profile: p})
	return err
}

// RemoveProfile removes a profile (profiles.remove).
func (m Methods) RemoveProfile(ctx context.Context, name string) error {
	_, err := Call(ctx, m, hostapi.MethodProfilesRemove, hostapi.NameParams{Name: name})
	return err
}

// RenameProfile renames a profile (profiles.rename).
func (m Methods) RenameProfile(ctx context.Context, name, newName string) error {
	_, err := Call(ctx, m, hostapi.MethodProfilesRename, hostapi.RenameParams{Name: name, NewName: newName})
	return err
}
