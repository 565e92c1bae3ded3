package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

func TestParseEnvValue(t *testing.T) {
	tests := []struct {
		in      string
		want    serverspec.EnvValue
		wantErr string
	}{
		{"", serverspec.EnvValue{}, ""},
		{"plain", serverspec.EnvValue{{Text: "plain"}}, ""},
		{"${keyring:gh}", serverspec.EnvValue{{Secret: "gh"}}, ""},
		{"Bearer ${keyring:gh}", serverspec.EnvValue{{Text: "Bearer "}, {Secret: "gh"}}, ""},
		{"${keyring:a}:${keyring:B.c_d-1}/x", serverspec.EnvValue{{Secret: "a"}, {Text: ":"}, {Secret: "B.c_d-1"}, {Text: "/x"}}, ""},
		{"$${keyring:gh}", serverspec.EnvValue{{Text: "${keyring:gh}"}}, ""},
		{"a $${HOME} b", serverspec.EnvValue{{Text: "a ${HOME} b"}}, ""},
		{"$$${keyring:x}", serverspec.EnvValue{{Text: "$${keyring:x}"}}, ""},
		{"cost: $5, pa$$word, $HOME, {x}, $", serverspec.EnvValue{{Text: "cost: $5, pa$$word, $HOME, {x}, $"}}, ""},
		{"${keyring:gh", nil, `"${keyring:" at byte 0 is not closed: end the reference with "}"`},
		{"Bearer ${keyring:", nil, `"${keyring:" at byte 7 is not closed: end the reference with "}"`},
		{"${keyring:}", nil, `"${keyring:}" names no secret: write ${keyring:NAME}`},
		{"${keyring:a b}", nil, `secret name "a b" is not valid: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`},
		{"${keyring:-a}", nil, `secret name "-a" is not valid: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`},
		{"${HOME}", nil, `"${HOME}" is not supported: only ${keyring:NAME} references are; write $${ for a literal "${"`},
		{"${env:HOME}", nil, `"${env:HOME}" is not supported: only ${keyring:NAME} references are; write $${ for a literal "${"`},
		{"${KEYRING:gh}", nil, `"${KEYRING:gh}" is not supported: only ${keyring:NAME} references are; write $${ for a literal "${"`},
		{"x${", nil, `"${" at byte 1 is not closed: only ${keyring:NAME} references are supported; write $${ for a literal "${"`},
	}
	for _, tt := range tests {
		got, err := ParseEnvValue(tt.in)
		if errString(err) != tt.wantErr {
			t.Errorf("ParseEnvValue(%q) err = %v, want %q", tt.in, err, tt.wantErr)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseEnvValue(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
	// A message never quotes the value around the reference.
	if _, err := ParseEnvValue("ghp_SECRETVALUE ${keyring:"); err == nil || strings.Contains(err.Error(), "ghp_") {
		t.Errorf("error leaks the value: %v", err)
	}
	if got := KeyringRef("gh"); got != "${keyring:gh}" {
		t.Errorf("KeyringRef = %q", got)
	}
}
