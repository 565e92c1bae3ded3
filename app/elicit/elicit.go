// Package elicit reads the form of a server's elicitation/create (its
// requested schema: a flat object of strings, numbers, integers, booleans
// and choices, as the protocol allows) into fields that any front end can
// show, and checks a person's answer against it, every problem at once.
// The host asks a person through it when the app that caused the question
// cannot (issue 30 §2); the tray, the window and 'switchboard answer' show
// the same fields.
package elicit

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// MaxFields bounds a form: a schema with more properties is refused (a
// server cannot flood a person with fields).
const MaxFields = 64

type property struct {
	Type        any             `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []choice        `json:"oneOf"`
	AnyOf       []choice        `json:"anyOf"`
	Items       *property       `json:"items"`
	Default     json.RawMessage `json:"default"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
}

type choice struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

type schema struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
	Required   []string        `json:"required"`
}

// Fields reads a requested schema into a form's fields, in the schema's
// order. An error names what the form cannot hold (a nested object, an
// unknown type): the host then declines the question for the user, with
// that reason in its log.
func Fields(raw json.RawMessage) ([]hostapi.InputField, error) {
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON object: %v", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("the requested schema is of type %q, not an object of fields", s.Type)
	}
	names, err := keysInOrder(s.Properties)
	if err != nil {
		return nil, err
	}
	if len(names) > MaxFields {
		return nil, fmt.Errorf("the requested schema has %d fields, more than the %d a form holds", len(names), MaxFields)
	}
	var props map[string]property
	if len(s.Properties) > 0 {
		if err := json.Unmarshal(s.Properties, &props); err != nil {
			return nil, fmt.Errorf("the requested schema's properties cannot be read: %v", err)
		}
	}
	// Required fields first: a schema decoded into a map on the way here
	// (the go-sdk's) has lost its order, and the required ones matter
	// most; each group stays in the order it came.
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	var out []hostapi.InputField
	for _, name := range names {
		p := props[name]
		f := hostapi.InputField{Name: name, Title: p.Title, Description: p.Description, Format: p.Format,
			Required: slices.Contains(s.Required, name), Default: p.Default,
			Minimum: p.Minimum, Maximum: p.Maximum, MinLength: p.MinLength, MaxLength: p.MaxLength,
			MinItems: p.MinItems, MaxItems: p.MaxItems}
		typ, _ := p.Type.(string)
		switch typ {
		case "string", "number", "integer", "boolean":
			f.Type = typ
		case "array":
			f.Type = "array"
			if p.Items == nil {
				return nil, fmt.Errorf("field %q is a list without items: a form holds only a multiple choice", name)
			}
			p.Enum, p.EnumNames, p.OneOf, p.AnyOf = p.Items.Enum, p.Items.EnumNames, p.Items.OneOf, p.Items.AnyOf
			if len(p.Enum) == 0 && len(p.OneOf) == 0 && len(p.AnyOf) == 0 {
				return nil, fmt.Errorf("field %q is a list without choices: a form holds only a multiple choice", name)
			}
		default:
			return nil, fmt.Errorf("field %q is of type %v, which a form cannot hold (only string, number, integer, boolean and choices)", name, p.Type)
		}
		for _, e := range p.Enum {
			f.Enum = append(f.Enum, fmt.Sprint(e))
		}
		if len(p.EnumNames) == len(p.Enum) {
			f.EnumNames = p.EnumNames
		}
		for _, c := range append(p.OneOf, p.AnyOf...) {
			f.Enum = append(f.Enum, fmt.Sprint(c.Const))
			f.EnumNames = append(f.EnumNames, c.Title)
		}
		if len(f.EnumNames) > 0 && len(f.EnumNames) != len(f.Enum) {
			f.EnumNames = nil
		}
		out = append(out, f)
	}
	return out, nil
}

// keysInOrder returns an object's keys as written.
func keysInOrder(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("the requested schema's properties are not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the requested schema's properties cannot be read: %v", err)
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("the requested schema's properties cannot be read: %v", err)
		}
	}
	return keys, nil
}

// Check checks an answer (a JSON object of the fields' values) against
// the fields and returns it as the server is to get it, or every problem
// at once, each keyed by its field's name. A value of a number field may
// be given as a string of digits (a form's text box), and is sent as a
// number.
func Check(fields []hostapi.InputField, content json.RawMessage) (map[string]any, []hostapi.Problem) {
	var in map[string]json.RawMessage
	if len(content) == 0 {
		content = []byte("{}")
	}
	if err := json.Unmarshal(content, &in); err != nil || in == nil {
		return nil, []hostapi.Problem{{Key: "", Message: "the answer must be a JSON object of the form's fields, like {\"name\": \"value\"}"}}
	}
	out := map[string]any{}
	var ps []hostapi.Problem
	bad := func(f hostapi.InputField, format string, args ...any) {
		ps = append(ps, hostapi.Problem{Key: f.Name, Message: fmt.Sprintf(format, args...)})
	}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
		raw, ok := in[f.Name]
		if !ok || string(raw) == "null" {
			if f.Required {
				bad(f, "is required")
			}
			continue
		}
		v, err := value(f, raw)
		if err != nil {
			bad(f, "%s", err)
			continue
		}
		out[f.Name] = v
	}
	for k := range in {
		if !known[k] {
			ps = append(ps, hostapi.Problem{Key: k, Message: "is not a field of this form"})
		}
	}
	slices.SortFunc(ps, func(a, b hostapi.Problem) int { return strings.Compare(a.Key, b.Key) })
	if len(ps) > 0 {
		return nil, ps
	}
	return out, nil
}

// value is one field's value, checked.
func value(f hostapi.InputField, raw json.RawMessage) (any, error) {
	switch f.Type {
	case "boolean":
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			var s string
			if json.Unmarshal(raw, &s) == nil && (s == "true" || s == "false") {
				return s == "true", nil
			}
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	case "number", "integer":
		var n float64
		if json.Unmarshal(raw, &n) != nil {
			var s string
			if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(strings.TrimSpace(s)), &n) != nil {
				return nil, fmt.Errorf("must be a number")
			}
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("must be a whole number")
		}
		if f.Minimum != nil && n < *f.Minimum {
			return nil, fmt.Errorf("must be at least %v", *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Errorf("must be at most %v", *f.Maximum)
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "array":
		var vs []string
		if json.Unmarshal(raw, &vs) != nil {
			return nil, fmt.Errorf("must be a list of choices from %s", strings.Join(f.Enum, ", "))
		}
		for _, v := range vs {
			if !slices.Contains(f.Enum, v) {
				return nil, fmt.Errorf("%q is not one of the choices %s", v, strings.Join(f.Enum, ", "))
			}
		}
		if f.MinItems != nil && len(vs) < *f.MinItems {
			return nil, fmt.Errorf("needs at least %d choices", *f.MinItems)
		}
		if f.MaxItems != nil && len(vs) > *f.MaxItems {
			return nil, fmt.Errorf("takes at most %d choices", *f.MaxItems)
		}
		return vs, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, fmt.Errorf("must be text")
	}
	if len(f.Enum) > 0 {
		if !slices.Contains(f.Enum, s) {
			return nil, fmt.Errorf("%q is not one of the choices %s", s, strings.Join(f.Enum, ", "))
		}
		return s, nil
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return nil, fmt.Errorf("must be at least %d characters", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return nil, fmt.Errorf("must be at most %d characters", *f.MaxLength)
	}
	switch f.Format {
	case "email":
		if _, err := mail.ParseAddress(s); err != nil || !strings.Contains(s, "@") {
			return nil, fmt.Errorf("must be an email address")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return nil, fmt.Errorf("must be a URI, like https://example.com")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return nil, fmt.Errorf("must be a date, like 2026-12-05")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, fmt.Errorf("must be a date and time, like 2026-12-05T14:30:00Z")
		}
	}
	return s, nil
}
