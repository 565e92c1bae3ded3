// Command snapshot writes app/registry/snapshot.json.gz, the registry
// snapshot built into Switchboard (docs/registry.md):
//
//	go run ./app/registry/gen/snapshot -legacy seed_2025_05_16.json [-seed seed.json] [-o app/registry/snapshot.json.gz]
//
// -legacy is data/seed_2025_05_16.json of github.com/modelcontextprotocol/registry
// (the registry's first seed: 471 servers in the pre-2025-09 format); -seed
// a list of current server.json documents (the repository's data/seed.json;
// gen/snapshot/seed.json is the copy used). The catalog of templates
// (app/catalog) is added as server.json documents.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

func main() {
	legacy := flag.String("legacy", "", "data/seed_2025_05_16.json of the registry's repository")
	seed := flag.String("seed", "app/registry/gen/snapshot/seed.json", "current server.json documents (a JSON list)")
	out := flag.String("o", "app/registry/snapshot.json.gz", "where to write")
	flag.Parse()
	if err := run(*legacy, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
}

func run(legacy, seed, out string) error {
	snap := registry.Snapshot{Generated: time.Now().UTC().Format(time.RFC3339)}
	byName := map[string]registry.Entry{}
	if legacy != "" {
		es, err := readLegacy(legacy)
		if err != nil {
			return err
		}
		for _, e := range es {
			byName[e.Server.Name] = e
		}
		snap.Sources = append(snap.Sources, fmt.Sprintf("github.com/modelcontextprotocol/registry data/seed_2025_05_16.json (%d servers; arguments dropped)", len(es)))
	}
	if seed != "" {
		es, err := readSeed(seed)
		if err != nil {
			return err
		}
		for _, e := range es {
			byName[e.Server.Name] = e // the newer document wins
		}
		snap.Sources = append(snap.Sources, fmt.Sprintf("github.com/modelcontextprotocol/registry data/seed.json (%d documents)", len(es)))
	}
	for _, e := range byName {
		snap.Official = append(snap.Official, e)
	}
	sort.Slice(snap.Official, func(i, j int) bool { return snap.Official[i].Server.Name < snap.Official[j].Server.Name })
	for _, t := range catalog.All() {
		snap.Catalog = append(snap.Catalog, catalogEntry(t))
	}
	snap.Sources = append(snap.Sources, fmt.Sprintf("Switchboard's catalog of templates, app/catalog (%d)", len(snap.Catalog)))
	data, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.ModTime = time.Time{}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d official entries, %d catalog entries, %d bytes (%d unpacked)\n", out, len(snap.Official), len(snap.Catalog), buf.Len(), len(data))
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// readSeed reads a list of server.json documents; for a name given more
// than once, the last one is kept (the seed lists versions in order).
func readSeed(path string) ([]registry.Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var docs []registry.Server
	if err := json.Unmarshal(data, &docs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []registry.Entry
	at := map[string]int{}
	for _, d := range docs {
		e := registry.Entry{Server: d, Status: registry.StatusActive, Note: "from the built-in snapshot (the registry's seed.json): run 'switchboard registry sync' for the registry's current entry"}
		if i, ok := at[d.Name]; ok {
			out[i] = e
			continue
		}
		at[d.Name] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// legacyServer is the registry's first format (seed of 2025-05-16).
type legacyServer struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Repository  struct {
		URL    string `json:"url"`
		Source string `json:"source"`
		ID     string `json:"id"`
	} `json:"repository"`
	VersionDetail struct {
		Version     string `json:"version"`
		ReleaseDate string `json:"release_date"`
	} `json:"version_detail"`
	Packages []struct {
		RegistryName string `json:"registry_name"`
		Name         string `json:"name"`
		Version      string `json:"version"`
		Env          []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"environment_variables"`
	} `json:"packages"`
	Remotes []struct {
		TransportType string `json:"transport_type"`
		URL           string `json:"url"`
	} `json:"remotes"`
}

// readLegacy converts the first seed. Its arguments were scraped from
// READMEs (docker's hold "-i", "--rm" and the image): they are dropped,
// as are packages of an unknown registry and docker ones (whose name is
// not an image reference); each entry says so in its note.
func readLegacy(path string) ([]registry.Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ls []legacyServer
	if err := json.Unmarshal(data, &ls); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []registry.Entry
	for _, l := range ls {
		s := registry.Server{Name: l.Name, Description: strings.TrimSpace(l.Description), Version: l.VersionDetail.Version}
		if l.Repository.URL != "" {
			s.Repository = &registry.Repository{URL: l.Repository.URL, Source: l.Repository.Source, ID: l.Repository.ID}
		}
		for _, p := range l.Packages {
			if p.RegistryName != "npm" && p.RegistryName != "pypi" {
				continue
			}
			pk := registry.Package{RegistryType: p.RegistryName, Identifier: p.Name, Version: p.Version, Transport: registry.Transport{Type: "stdio"}}
			for _, e := range p.Env {
				pk.EnvironmentVariables = append(pk.EnvironmentVariables, registry.KeyValue{Name: e.Name, Input: registry.Input{Description: e.Description}})
			}
			s.Packages = append(s.Packages, pk)
		}
		for _, r := range l.Remotes {
			if strings.HasPrefix(r.URL, "https://") {
				s.Remotes = append(s.Remotes, registry.Remote{Type: r.TransportType, URL: r.URL})
			}
		}
		out = append(out, registry.Entry{Server: s, Status: registry.StatusActive, PublishedAt: l.VersionDetail.ReleaseDate,
			Note: "from the built-in snapshot (the registry's first seed, 2025-05-16): its arguments are not known here and its versions may be old; run 'switchboard registry sync' for the registry's current entry"})
	}
	return out, nil
}

// catalogEntry is a template of the catalog as a server.json document.
func catalogEntry(t catalog.Server) registry.Entry {
	s := registry.Server{Name: registry.CatalogRegistry + "/" + t.Name, Title: t.Title, Description: t.Description, Version: t.Version, WebsiteURL: t.Homepage}
	if strings.HasPrefix(t.Homepage, "https://github.com/") {
		parts := strings.SplitN(strings.TrimPrefix(t.Homepage, "https://github.com/"), "/", 3)
		if len(parts) >= 2 {
			s.Repository = &registry.Repository{URL: "https://github.com/" + parts[0] + "/" + parts[1], Source: "github"}
			if len(parts) == 3 {
				s.Repository.Subfolder = strings.TrimPrefix(parts[2], "tree/main/")
			}
		}
	}
	p := registry.Package{RegistryType: string(t.Registry), Identifier: t.Package, Version: t.Version, Transport: registry.Transport{Type: "stdio"}}
	if t.Registry == catalog.NPM {
		p.RuntimeHint = "npx"
	} else {
		p.RuntimeHint = "uvx"
	}
	for _, a := range t.Args {
		p.PackageArguments = append(p.PackageArguments, registry.Argument{Type: "positional", Input: registry.Input{Value: a}})
	}
	for _, f := range t.Fields {
		in := registry.Input{Description: f.Label + ": " + f.Help, IsRequired: !f.Optional, IsSecret: f.Kind == catalog.Secret, Placeholder: f.Placeholder}
		if f.Kind == catalog.Dir || f.Kind == catalog.Dirs || f.Kind == catalog.File {
			in.Format = "filepath"
		}
		switch {
		case f.Env != "":
			p.EnvironmentVariables = append(p.EnvironmentVariables, registry.KeyValue{Name: f.Env, Input: in})
		case f.Flag != "":
			p.PackageArguments = append(p.PackageArguments, registry.Argument{Type: "named", Name: f.Flag, ValueHint: f.ID, Input: in})
		default:
			p.PackageArguments = append(p.PackageArguments, registry.Argument{Type: "positional", ValueHint: f.ID, IsRepeated: f.Kind == catalog.Dirs, Input: in})
		}
	}
	s.Packages = []registry.Package{p}
	return registry.Entry{Server: s, Registry: registry.CatalogRegistry, Status: registry.StatusActive,
		Note: "Switchboard's built-in catalog: a template reviewed by hand, pinned to this version"}
}
