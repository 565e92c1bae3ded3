package serverspec

import "strings"

// EnvValue is the value of one environment variable: literal text and
// references to secrets, joined in order. Secret references are resolved
// only when the process is spawned, through a SecretResolver (engine).
type EnvValue []EnvPart

// EnvPart is a piece of an [EnvValue]: literal Text, or the name of a
// Secret when Secret is not empty.
type EnvPart struct {
	Text   string
	Secret string
}

// Secrets returns the names of the secrets the value refers to.
func (v EnvValue) Secrets() []string {
	var names []string
	for _, p := range v {
		if p.Secret != "" {
			names = append(names, p.Secret)
		}
	}
	return names
}

// String shows the value with each secret as ${secret:NAME}; it never
// contains a secret's value, so it is safe to log.
func (v EnvValue) String() string {
	var b strings.Builder
	for _, p := range v {
		if p.Secret != "" {
			b.WriteString("${secret:" + p.Secret + "}")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
