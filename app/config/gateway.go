package config

import (
	"encoding/json"
	"errors"
	"fmt"
)

// GatewaySettings are the options of the host's MCP gateway: the optional
// top-level "gateway" object of the file.
//
//	"gateway": {"httpPort": 8765}
//
// HTTPPort 0 (or no "gateway" key) leaves the Streamable HTTP endpoint off;
// the gateway's local socket is always on.
type GatewaySettings struct {
	HTTPPort int `json:"httpPort,omitempty"`
}

// Gateway returns the file's gateway settings; a malformed "gateway" key is
// an error naming the key and the remedy, and yields the zero settings.
func (f *File) Gateway() (GatewaySettings, error) {
	var g GatewaySettings
	raw, ok := f.extra["gateway"]
	if !ok || isNull(raw) {
		return g, nil
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		return GatewaySettings{}, Problem{Key: "gateway", Message: `is not an object: write {"httpPort": 8765}, or remove it`}
	}
	for _, m := range ms {
		switch m.Key {
		case "httpPort":
			var p int
			if err := json.Unmarshal(m.Value, &p); err != nil || p < 0 || p > 65535 {
				return GatewaySettings{}, Problem{Key: "gateway.httpPort", Message: fmt.Sprintf("%s is not a port: write a number from 1 to 65535, or 0 to turn the HTTP endpoint off", rawString(m.Value))}
			}
			g.HTTPPort = p
		}
	}
	return g, nil
}

// gatewayProblems are the problems of the "gateway" key, for the
// [Report]: those that make [File.Gateway] fail, and keys it does not
// know.
func (f *File) gatewayProblems() []Problem {
	if _, err := f.Gateway(); err != nil {
		var p Problem
		if errors.As(err, &p) {
			return []Problem{p}
		}
		return []Problem{{Key: "gateway", Message: err.Error()}}
	}
	raw, ok := f.extra["gateway"]
	if !ok || isNull(raw) {
		return nil
	}
	ms, _, _ := decodeObject(raw)
	var ps []Problem
	for _, m := range ms {
		if m.Key != "httpPort" {
			ps = append(ps, Problem{Key: "gateway." + m.Key, Message: `is not a known key: the gateway's only setting is "httpPort"`})
		}
	}
	return ps
}
