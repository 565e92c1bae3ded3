package client

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// RegistrySearch searches the registries' local indexes and the built-in
// catalog (registry.search; the host never reaches the network for it).
func (m Methods) RegistrySearch(ctx context.Context, query string, limit int) (hostapi.RegistrySearchResult, error) {
	return Call(ctx, m, hostapi.MethodRegistrySearch, hostapi.RegistrySearchParams{Query: query, Limit: limit})
}

// RegistryShow returns an entry's card as JSON (registry.show): decode it
// with app/registry's Card.
func (m Methods) RegistryShow(ctx context.Context, name, registry string) (json.RawMessage, error) {
	r, err := Call(ctx, m, hostapi.MethodRegistryShow, hostapi.RegistryShowParams{Name: name, Registry: registry})
	return r.Card, err
}

// RegistryAdd adds a registry entry as a server (registry.add). A locked
// npm install can take a minute: give ctx the time.
func (m Methods) RegistryAdd(ctx context.Context, p hostapi.RegistryAddParams) (hostapi.RegistryAddResult, error) {
	return Call(ctx, m, hostapi.MethodRegistryAdd, p)
}
