package elicit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

const form = `{"type":"object","properties":{
 "nick":{"type":"string","minLength":2,"maxLength":5},
 "name":{"type":"string","title":"Name"},
 "age":{"type":"integer","minimum":1,"maximum":120},
 "ok":{"type":"boolean"},
 "mail":{"type":"string","format":"email"},
 "day":{"type":"string","format":"date"},
 "pet":{"type":"string","enum":["cat","dog"],"enumNames":["Cat","Dog"]},
 "hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Batman"}]},
 "fish":{"type":"array","minItems":1,"maxItems":2,"items":{"anyOf":[{"const":"f1","title":"Tuna"},{"const":"f2","title":"Trout"},{"const":"f3","title":"Cod"}]}}},
 "required":["name","age"]}`

func TestFields(t *testing.T) {
	fs, err := Fields(json.RawMessage(form))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	// Required first, then the schema's order.
	if want := []string{"name", "age", "nick", "ok", "mail", "day", "pet", "hero", "fish"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order: %v, want %v", names, want)
	}
	byName := map[string]hostapi.InputField{}
	for _, f := range fs {
		byName[f.Name] = f
	}
	if f := byName["hero"]; !reflect.DeepEqual(f.Enum, []string{"h1", "h2"}) || !reflect.DeepEqual(f.EnumNames, []string{"Superman", "Batman"}) {
		t.Errorf("oneOf choice: %+v", f)
	}
	if f := byName["fish"]; f.Type != "array" || len(f.Enum) != 3 || f.EnumNames[1] != "Trout" {
		t.Errorf("multiple choice: %+v", f)
	}
	if f := byName["pet"]; f.EnumNames[0] != "Cat" || !byName["name"].Required || byName["nick"].Required {
		t.Errorf("enumNames, required: %+v", f)
	}
	for _, bad := range []string{`[]`, `{"type":"string"}`, `{"properties":{"a":{"type":"object"}}}`, `{"properties":{"a":{"type":"array","items":{"type":"string"}}}}`} {
		if _, err := Fields(json.RawMessage(bad)); err == nil {
			t.Errorf("Fields(%s): no error", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	fs, _ := Fields(json.RawMessage(form))
	got, ps := Check(fs, json.RawMessage(`{"name":"Ada","age":"42","ok":"true","pet":"dog","hero":"h2","fish":["f1"],"mail":"a@b.c","day":"2026-12-05"}`))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := map[string]any{"name": "Ada", "age": int64(42), "ok": true, "pet": "dog", "hero": "h2", "fish": []string{"f1"}, "mail": "a@b.c", "day": "2026-12-05"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	_, ps = Check(fs, json.RawMessage(`{"age":1.5,"nick":"x","mail":"nope","day":"5 Dec","pet":"cow","hero":"h9","fish":["f1","f2","f3"],"ok":3,"zzz":1}`))
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.Key+" "+p.Message)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"name is required", "age must be a whole number", "nick must be at least 2 characters",
		"mail must be an email address", "day must be a date", `pet "cow" is not one of the choices`, `hero "h9" is not one of`,
		"fish takes at most 2 choices", "ok must be true or false", "zzz is not a field"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q among:\n%s", want, text)
		}
	}
	if _, ps := Check(fs, json.RawMessage(`{"name":"A","age":121}`)); len(ps) != 1 || ps[0].Key != "age" {
		t.Errorf("age over the maximum: %v", ps)
	}
	if _, ps := Check(fs, json.RawMessage(`[1]`)); len(ps) != 1 {
		t.Errorf("not an object: %v", ps)
	}
}
