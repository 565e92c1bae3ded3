package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"golang.org/x/term"
)

const requestsHelp = `A server may ask the user a question while it serves an app's call (an
MCP elicitation: a form to fill in, or a page to open such as a sign-in).
Switchboard sends it to the app that made the call when that app can ask
it; otherwise the question waits here, in the window and in the tray,
until you answer it ('switchboard answer'), decline it ('switchboard
decline'), or 5 minutes pass. With no window, tray or 'switchboard
requests -f' attached, a question is cancelled at once.

'switchboard requests -f' keeps printing the questions as they come, and
makes this terminal one that can be asked (on a headless host, the one way).
`

const answerHelp = `A form's answer is one JSON object of its fields' values, checked
against the form (every problem is named at once); 'switchboard requests'
shows the fields. Without the JSON, on a terminal, the fields are asked
one by one (a choice by its number or its value; Enter takes the default),
and a field with a problem is asked again. A question that asks to open a page shows the page's
host first: the page opens in your browser once you confirm it (--yes:
without asking), and the server is told you opened it.
`

// requests lists the waiting questions (--follow: as they change).
func (e *env) requests(a *argv) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	c, err := e.needHost(ctx, "requests")
	if err != nil {
		return err
	}
	defer c.Close()
	return listOrFollow(e, ctx, a.flag("follow"), c.FollowRequests, c.Requests, "no server's question is waiting",
		func(q hostapi.InputRequest) string { return q.ID }, e.printQuestion)
}

func (e *env) printQuestion(q hostapi.InputRequest) {
	app := q.App
	if app == "" {
		app = "an app"
	}
	left := time.Until(q.Deadline).Round(time.Second)
	fmt.Fprintf(e.stdout, "%s  server %s asks (while serving %s; cancelled in %v unless answered):\n",
		q.ID, termtext.Escape(q.Server), termtext.Escape(app), left)
	if q.Message != "" {
		fmt.Fprintf(e.stdout, "    %s\n", termtext.Escape(q.Message))
	}
	if q.Mode == hostapi.InputURL {
		fmt.Fprintf(e.stdout, "    open a page on %s: %s\n", termtext.Escape(q.URLHost), termtext.Escape(q.URL))
		fmt.Fprintf(e.stdout, "    switchboard answer %s   switchboard decline %s\n", q.ID, q.ID)
		return
	}
	example := map[string]any{}
	for _, f := range q.Fields {
		e.printField(f)
		example[f.Name] = exampleValue(f)
	}
	b, _ := json.Marshal(example)
	fmt.Fprintf(e.stdout, "    switchboard answer %s '%s'   switchboard decline %s\n", q.ID, b, q.ID)
}

// printField is one line of a form: name, type, constraints, title.
func (e *env) printField(f hostapi.InputField) {
	var what []string
	what = append(what, f.Type)
	if f.Format != "" {
		what = append(what, f.Format)
	}
	if f.Required {
		what = append(what, "required")
	}
	if len(f.Enum) > 0 {
		what = append(what, "one of "+strings.Join(f.Enum, "|"))
	}
	if f.Minimum != nil {
		what = append(what, fmt.Sprintf(">= %v", *f.Minimum))
	}
	if f.Maximum != nil {
		what = append(what, fmt.Sprintf("<= %v", *f.Maximum))
	}
	title := f.Title
	if f.Description != "" {
		if title != "" {
			title += ": "
		}
		title += f.Description
	}
	fmt.Fprintf(e.stdout, "    %-16s %s  %s\n", termtext.Escape(f.Name), termtext.Escape(strings.Join(what, ", ")), termtext.Escape(title))
}

// exampleValue is a value of f's type for the command line shown.
func exampleValue(f hostapi.InputField) any {
	switch {
	case f.Type == "boolean":
		return true
	case f.Type == "number" || f.Type == "integer":
		if f.Minimum != nil {
			return *f.Minimum
		}
		return 1
	case f.Type == "array" && len(f.Enum) > 0:
		return []string{f.Enum[0]}
	case len(f.Enum) > 0:
		return f.Enum[0]
	}
	return "..."
}

// answer answers a waiting question: a form with a JSON object, a page by
// opening it after the user confirms its host.
func (e *env) answer(a *argv) error {
	if len(a.pos) < 1 || len(a.pos) > 2 {
		return usagef("answer: give the ID of one waiting question ('switchboard requests' lists them) and, for a form, its values as one JSON object")
	}
	id := a.pos[0]
	ctx := context.Background()
	c, err := e.needHost(ctx, "answer")
	if err != nil {
		return err
	}
	defer c.Close()
	list, err := c.Requests(ctx)
	if err != nil {
		return err
	}
	var q *hostapi.InputRequest
	for i := range list {
		if list[i].ID == id {
			q = &list[i]
		}
	}
	if q == nil {
		return fmt.Errorf("no question %q is waiting (answered, withdrawn by its server, or timed out): list them with 'switchboard requests'", id)
	}
	if q.Mode == hostapi.InputURL {
		if len(a.pos) == 2 {
			return usagef("answer: question %s asks to open a page; it takes no values", id)
		}
		if !a.flag("yes") {
			f, ok := e.stdin.(*os.File)
			if !ok || !term.IsTerminal(int(f.Fd())) {
				return fmt.Errorf("nothing was opened: stdin is not a terminal to ask on; the page is on %s (%s): give --yes to open it", q.URLHost, q.URL)
			}
			fmt.Fprintf(e.stdout, "server %s asks you to open a page on %s:\n    %s\nopen it? [y/N] ", termtext.Escape(q.Server), termtext.Escape(q.URLHost), termtext.Escape(q.URL))
			line, _ := bufio.NewReader(f).ReadString('\n')
			if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
				return fmt.Errorf("nothing was opened; the question still waits ('switchboard decline %s' to refuse it)", id)
			}
		}
		if err := openBrowser(q.URL); err != nil {
			fmt.Fprintf(e.stderr, "no browser could be opened (%v): open %s yourself\n", err, q.URL)
		}
		if err := c.Answer(ctx, id, hostapi.ActionAccept, nil); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: opened; server %s was told\n", id, termtext.Escape(q.Server))
		return nil
	}
	content := json.RawMessage("{}")
	if len(a.pos) == 2 {
		content = json.RawMessage(a.pos[1])
	} else if len(q.Fields) > 0 {
		f, ok := e.stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return usagef("answer: question %s is a form: give its values as one JSON object ('switchboard requests' shows its fields)", id)
		}
		return e.answerOnTerminal(ctx, c, q, bufio.NewReader(f))
	}
	if err := c.Answer(ctx, id, hostapi.ActionAccept, content); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: answered; server %s has your answer\n", id, termtext.Escape(q.Server))
	return nil
}

// decline declines a waiting question: the server is told the user said
// no.
func (e *env) decline(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("decline: give the ID of one waiting question ('switchboard requests' lists them)")
	}
	ctx := context.Background()
	c, err := e.needHost(ctx, "decline")
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Answer(ctx, a.pos[0], hostapi.ActionDecline, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: declined; the server was told you said no\n", a.pos[0])
	return nil
}

// answerer is what answerOnTerminal needs of the host.
type answerer interface {
	Answer(ctx context.Context, id, action string, content json.RawMessage) error
}

// answerOnTerminal asks for a form's fields one by one on a terminal, and
// asks again for the fields the host finds a problem with (three times at
// most).
func (e *env) answerOnTerminal(ctx context.Context, c answerer, q *hostapi.InputRequest, in *bufio.Reader) error {
	if q.Message != "" {
		fmt.Fprintf(e.stdout, "server %s asks: %s\n", termtext.Escape(q.Server), termtext.Escape(q.Message))
	}
	values := map[string]any{}
	ask := q.Fields
	for try := 0; ; try++ {
		for _, f := range ask {
			v, err := e.askField(f, in)
			if err != nil {
				return err
			}
			if v == nil {
				delete(values, f.Name)
			} else {
				values[f.Name] = v
			}
		}
		content, _ := json.Marshal(values)
		err := c.Answer(ctx, q.ID, hostapi.ActionAccept, content)
		var he *hostapi.Error
		if err == nil {
			fmt.Fprintf(e.stdout, "%s: answered; server %s has your answer\n", q.ID, termtext.Escape(q.Server))
			return nil
		}
		if !errors.As(err, &he) || len(he.Problems) == 0 || try == 2 {
			return err
		}
		ask = nil
		for _, p := range he.Problems {
			fmt.Fprintf(e.stderr, "%s: %s\n", termtext.Escape(p.Key), termtext.Escape(p.Message))
			for _, f := range q.Fields {
				if f.Name == p.Key {
					ask = append(ask, f)
				}
			}
		}
		if len(ask) == 0 {
			return err
		}
	}
}

// askField asks for one field's value: nil when left empty (the default,
// if there is one, is shown and taken).
func (e *env) askField(f hostapi.InputField, in *bufio.Reader) (any, error) {
	label := f.Name
	if f.Title != "" && f.Title != f.Name {
		label += " (" + f.Title + ")"
	}
	var hint []string
	switch {
	case f.Type == "boolean":
		hint = append(hint, "y/n")
	case len(f.Enum) > 0:
		for i, v := range f.Enum {
			name := v
			if i < len(f.EnumNames) && f.EnumNames[i] != "" {
				name = f.EnumNames[i] + "=" + v
			}
			hint = append(hint, fmt.Sprintf("%d) %s", i+1, name))
		}
		if f.Type == "array" {
			hint = append(hint, "several: 1,3")
		}
	default:
		hint = append(hint, f.Type)
		if f.Format != "" {
			hint = append(hint, f.Format)
		}
	}
	if f.Required {
		hint = append(hint, "required")
	}
	def := ""
	if len(f.Default) > 0 {
		def = strings.Trim(string(f.Default), `"`)
		hint = append(hint, "default "+def)
	}
	if f.Description != "" {
		fmt.Fprintf(e.stdout, "  %s\n", termtext.Escape(f.Description))
	}
	fmt.Fprintf(e.stdout, "%s [%s]: ", termtext.Escape(label), termtext.Escape(strings.Join(hint, ", ")))
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return nil, fmt.Errorf("the terminal closed before the form was filled; nothing was sent")
	}
	line = strings.TrimSpace(line)
	if line == "" {
		if len(f.Default) > 0 {
			var v any
			if json.Unmarshal(f.Default, &v) == nil {
				return v, nil
			}
		}
		return nil, nil
	}
	choice := func(s string) string { // a choice by its number or its value
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 1 && n <= len(f.Enum) {
			return f.Enum[n-1]
		}
		return strings.TrimSpace(s)
	}
	switch {
	case f.Type == "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return line, nil // the host names the problem
	case f.Type == "array":
		var out []string
		for _, part := range strings.Split(line, ",") {
			out = append(out, choice(part))
		}
		return out, nil
	case len(f.Enum) > 0:
		return choice(line), nil
	}
	return line, nil // numbers too: the host reads "42" as 42
}
