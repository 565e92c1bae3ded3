package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"testing"
)

const hidden = "hunter2-TOP-SECRET-value"

type exported struct {
	Name  string
	Token Secret
	Ptr   *Secret
}

type unexported struct {
	name  string
	token Secret
	ptr   *Secret
}

func noValue(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, hidden) || strings.Contains(s, fmt.Sprintf("%x", hidden)) || strings.Contains(s, fmt.Sprintf("%X", hidden)) {
		t.Errorf("%s shows the value: %s", what, s)
	}
}

func TestSecretRevealAndZero(t *testing.T) {
	s := New(hidden)
	if s.Reveal() != hidden || s.IsZero() {
		t.Fatal("Reveal does not return the value")
	}
	var z Secret
	if z.Reveal() != "" || !z.IsZero() || z.String() != Redacted {
		t.Fatal("zero Secret")
	}
}

func TestSecretFmtEveryVerb(t *testing.T) {
	s := New(hidden)
	p := &s
	values := map[string]any{
		"value":            s,
		"pointer":          p,
		"exported struct":  exported{"x", s, p},
		"exported pointer": &exported{"x", s, p},
		"unexported":       unexported{"x", s, p},
		"unexported ptr":   &unexported{"x", s, p},
		"slice":            []Secret{s, s},
		"map":              map[string]Secret{"k": s},
		"any slice":        []any{s, p},
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%10s", "%-12v", "%.3s", "%08x", "% x", "%U", "%c", "%t", "%e", "%g", "%b", "%o", "%p"}
	for what, v := range values {
		for _, verb := range verbs {
			noValue(t, what+" "+verb, fmt.Sprintf(verb, v))
		}
		noValue(t, what+" Sprint", fmt.Sprint(v))
		noValue(t, what+" Sprintln", fmt.Sprintln(v, v))
	}
	for verb, want := range map[string]string{"%v": Redacted, "%s": Redacted, "%q": `"` + Redacted + `"`, "%x": Redacted, "%#v": `secrets.Secret("[redacted]")`} {
		if got := fmt.Sprintf(verb, s); got != want {
			t.Errorf("%s: got %q, want %q", verb, got, want)
		}
	}
	if s.String() != Redacted || !strings.Contains(s.GoString(), Redacted) {
		t.Error("String/GoString")
	}
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	l.Printf("token=%v %s", s, p)
	l.Println(s, exported{"x", s, p})
	noValue(t, "log", buf.String())
}

func TestSecretJSONAndText(t *testing.T) {
	s := New(hidden)
	b, err := json.Marshal(exported{"x", s, &s})
	if err != nil {
		t.Fatal(err)
	}
	noValue(t, "json", string(b))
	if string(b) != `{"Name":"x","Token":"[redacted]","Ptr":"[redacted]"}` {
		t.Errorf("json: %s", b)
	}
	b, _ = json.Marshal(map[string]any{"a": s, "b": []Secret{s}})
	noValue(t, "json map", string(b))
	//lint:ignore SA9005 on purpose: a struct without exported fields must not leak its secrets either
	b, _ = json.MarshalIndent(unexported{"x", s, &s}, "", " ")
	noValue(t, "json unexported", string(b))
	txt, err := s.MarshalText()
	if err != nil || string(txt) != Redacted {
		t.Errorf("MarshalText: %q %v", txt, err)
	}
	// A Secret as a map key uses MarshalText.
	b, _ = json.Marshal(map[Secret]int{s: 1})
	noValue(t, "json key", string(b))
}

func TestSecretSlog(t *testing.T) {
	s := New(hidden)
	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		l := slog.New(h(&buf))
		l.Info("secret", "token", s, "ptr", &s, "struct", exported{"x", s, &s}, "unexported", unexported{"x", s, &s})
		l.Info("group", slog.Group("g", slog.Any("token", s)), slog.String("str", s.String()))
		l.With("token", s).Warn("with")
		l.Error("err", "err", fmt.Errorf("wrapping %v", s))
		noValue(t, "slog", buf.String())
		if !strings.Contains(buf.String(), Redacted) {
			t.Errorf("slog output lacks the redaction: %s", buf.String())
		}
	}
}

func TestSecretInErrors(t *testing.T) {
	s := New(hidden)
	base := fmt.Errorf("token %v rejected", s)
	errs := []error{
		base,
		fmt.Errorf("outer: %w", base),
		fmt.Errorf("%s %q %+v %#v %x", s, s, s, s, s),
		errors.Join(base, fmt.Errorf("second %v", &s)),
		&Error{Op: "set", Name: "gh", Kind: Other, Err: base},
	}
	for _, err := range errs {
		noValue(t, "error", err.Error())
		noValue(t, "error %+v", fmt.Sprintf("%+v", err))
	}
}
