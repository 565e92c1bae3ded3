package window

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// toolInfo is what the window reads of a tool (servers.tools returns the
// MCP SDK's Tool; only these fields are needed).
type toolInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema json.RawMessage  `json:"inputSchema,omitempty"`
	Annotations *toolAnnotations `json:"annotations,omitempty"`
}

// toolsView lists a running server's tools; choosing one shows its
// description, its input schema, and a "Try it" panel that calls it.
type toolsView struct {
	w       *Window
	server  string
	tools   []toolInfo
	seen    int // the server's tool count when last fetched
	list    *fyne.Container
	buttons map[string]*widget.Button
	detail  *fyne.Container
	try     *tryPanel
	err     *widget.Label
	obj     fyne.CanvasObject
	// entry is the server's entry (its filter and policy; nil: not
	// known), held its tools held for review by name, heldSeen the
	// server's held count when they were fetched (toolmarks.go).
	entry    *config.Server
	held     map[string]hostapi.HeldTool
	heldSeen int
}

func (w *Window) openTools(name string) {
	v := &toolsView{w: w, server: name, buttons: map[string]*widget.Button{}, seen: -1}
	v.list = container.NewVBox(widget.NewLabel("Loading…"))
	v.detail = container.NewStack(widget.NewLabel("Choose a tool."))
	v.err = errorLabel()
	// The split's divider draws Fyne's drag handle, a short bar at its
	// middle: it is how the two panes are resized.
	split := container.NewHSplit(pageScroll(v.list), pageScroll(v.detail))
	split.Offset = 0.25
	v.obj = container.NewBorder(v.err, nil, nil, nil, split)
	w.open(&page{title: "Tools of " + name, obj: v.obj, reload: v.fetch})
	w.tools = v
	for _, st := range w.snap.Servers {
		if st.Name == name {
			v.seen, v.heldSeen = st.Tools, st.Held
		}
	}
	v.fetch()
}

// fetch reads the server's tools (again, on Refresh or when their number
// changed).
func (v *toolsView) fetch() {
	var res struct {
		Tools []toolInfo
		Entry *config.Server
		Held  map[string]hostapi.HeldTool
	}
	v.w.call(func(ctx context.Context) error {
		raws, err := v.w.live.ToolsJSON(ctx, v.server)
		if err != nil {
			return err
		}
		res.Tools = make([]toolInfo, 0, len(raws))
		for _, raw := range raws {
			var t toolInfo
			if err := json.Unmarshal(raw, &t); err != nil {
				return fmt.Errorf("a tool of %s cannot be read: %w", v.server, err)
			}
			res.Tools = append(res.Tools, t)
		}
		// What apps see of them, and what their calls do: no marks when
		// the entry cannot be read (an older host answers the rest).
		if raw, err := v.w.live.GetServer(ctx, v.server); err == nil {
			res.Entry, _ = config.ParseServer(v.server, raw)
		}
		if held, _, err := v.w.live.ReviewTools(ctx, v.server); err == nil {
			res.Held = map[string]hostapi.HeldTool{}
			for _, h := range held {
				res.Held[h.Tool] = h
			}
		}
		return nil
	}, func(err error) {
		if v.w.tools != v {
			return
		}
		if err != nil {
			setText(v.err, err.Error())
			return
		}
		setText(v.err, "")
		v.entry, v.held = res.Entry, res.Held
		v.setTools(res.Tools)
	})
}

// stateChanged follows the server: its tools are fetched again when
// their number changes (a tools/list_changed notification).
func (v *toolsView) stateChanged(s client.Snapshot) {
	for _, st := range s.Servers {
		if st.Name != v.server {
			continue
		}
		if st.State != hostapi.StateRunning {
			setText(v.err, fmt.Sprintf("%s is %s: its tools show again once it runs.", v.server, st.State))
			v.seen = -1
			return
		}
		if st.Tools != v.seen || st.Held != v.heldSeen {
			v.seen, v.heldSeen = st.Tools, st.Held
			v.fetch()
		}
		return
	}
	setText(v.err, fmt.Sprintf("%s is no longer in the config.", v.server))
}

// setTools shows a list of tools, keeping the one chosen if it remains.
func (v *toolsView) setTools(tools []toolInfo) {
	v.tools = tools
	v.list.Objects = nil
	v.buttons = map[string]*widget.Button{}
	for _, t := range tools {
		b := widget.NewButton(stateOf(t, v.entry, v.held).listLabel(t.Name), func() { v.show(t) })
		b.Alignment = widget.ButtonAlignLeading
		v.buttons[t.Name] = b
		v.list.Add(b)
	}
	if len(tools) == 0 {
		v.list.Add(widget.NewLabel("This server has no tools."))
	}
	v.list.Refresh()
	chosen := ""
	if v.try != nil {
		chosen = v.try.tool.Name
	}
	for _, t := range tools {
		if t.Name == chosen {
			// Shown again when what the tab says of it changed (its
			// policy, its review); else kept, with what was typed.
			if !sameState(stateOf(t, v.entry, v.held), v.try.state) {
				v.show(t)
			} else {
				v.mark(t.Name)
			}
			return
		}
	}
	if len(tools) > 0 {
		v.show(tools[0])
	} else {
		v.try = nil
		v.detail.Objects = []fyne.CanvasObject{widget.NewLabel("")}
		v.detail.Refresh()
	}
}

// show shows a tool and its Try it panel.
func (v *toolsView) show(t toolInfo) {
	v.mark(t.Name)
	v.try = newTryPanel(v, t)
	v.detail.Objects = []fyne.CanvasObject{v.try.obj}
	v.detail.Refresh()
}

// mark highlights the chosen tool's button.
func (v *toolsView) mark(name string) {
	for n, b := range v.buttons {
		b.Importance = widget.MediumImportance
		if n == name {
			b.Importance = widget.HighImportance
		}
		b.Refresh()
	}
}

// tryPanel builds a tool's arguments and calls it: a field for each
// property of a simple type (string, number, integer, boolean; required
// ones marked *), JSON for the others, and one JSON object when the schema
// lists no properties.
type tryPanel struct {
	v      *toolsView
	tool   toolInfo
	inputs []*argInput
	raw    *widget.Entry // the whole arguments, when there is no form
	rawErr *widget.Label
	call   *widget.Button
	result *widget.Label
	obj    fyne.CanvasObject
	// What the tab says of the tool (toolmarks.go): its state, the
	// words of a held one, its policy's choice, and what gates Call.
	state      toolState
	heldNote   *widget.Label
	review     *widget.Button
	policy     *widget.Select
	policyHint *widget.Label
	gate       *widget.Label
	anyway     *widget.Check
}

// argInput is the field of one property.
type argInput struct {
	name     string
	typ      string // string, number, integer, boolean; "" for JSON
	required bool
	entry    *widget.Entry
	choice   *widget.Select // a string with an enum
	check    *widget.Check
	err      *widget.Label
}

// propSchema is what the form reads of a JSON schema.
type propSchema struct {
	Type        json.RawMessage            `json:"type"`
	Description string                     `json:"description"`
	Enum        []any                      `json:"enum"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Required    []string                   `json:"required"`
}

// simpleType returns the type of a schema when it is one of the simple
// ones (a ["string", "null"] union counts as "string"), else "".
func simpleType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) != nil {
		var many []string
		if json.Unmarshal(raw, &many) != nil {
			return ""
		}
		for _, t := range many {
			if t != "null" {
				if one != "" {
					return ""
				}
				one = t
			}
		}
	}
	switch one {
	case "string", "number", "integer", "boolean":
		return one
	}
	return ""
}

// objectKeys returns the keys of a JSON object in their order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
		keys = append(keys, k)
	}
	return keys
}

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func newTryPanel(v *toolsView, t toolInfo) *tryPanel {
	p := &tryPanel{v: v, tool: t, state: stateOf(t, v.entry, v.held)}
	head := []fyne.CanvasObject{bold(t.Name)}
	if t.Title != "" && t.Title != t.Name {
		head = append(head, widget.NewLabel(t.Title))
	}
	desc := selectableLabel(t.Description)
	desc.Wrapping = fyne.TextWrapWord
	if t.Description == "" {
		desc.SetText("(no description)")
	}
	schemaText := selectableLabel(indentJSON(t.InputSchema))
	schemaText.TextStyle = fyne.TextStyle{Monospace: true}
	schemaText.Wrapping = fyne.TextWrapBreak // a long line must not widen the window, even closed
	schema := widget.NewAccordion(widget.NewAccordionItem("Input schema", schemaText))

	var s propSchema
	_ = json.Unmarshal(t.InputSchema, &s)
	var form []fyne.CanvasObject
	if len(s.Properties) > 0 {
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		// The properties in their order (a map has none).
		var order struct {
			Properties json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &order)
		for _, name := range objectKeys(order.Properties) {
			in := newArgInput(name, s.Properties[name], required[name])
			p.inputs = append(p.inputs, in)
			label := name
			if in.required {
				label += " *"
			}
			form = append(form, widget.NewLabel(label), in.cell(s.Properties[name]))
		}
	} else {
		p.raw = widget.NewMultiLineEntry()
		p.raw.TextStyle = fyne.TextStyle{Monospace: true}
		p.raw.SetText("{}")
		p.rawErr = errorLabel()
		form = append(form, widget.NewLabel("Arguments (JSON)"), container.NewVBox(p.raw, p.rawErr))
	}
	p.call = widget.NewButtonWithIcon("Call "+t.Name, theme.MediaPlayIcon(), p.run)
	p.call.Importance = widget.HighImportance
	p.result = selectableLabel("")
	p.result.Wrapping = fyne.TextWrapWord
	p.result.Hide()
	tryObjs := []fyne.CanvasObject{bold("Try it"), formGrid(form...)}
	if g := p.gateTry(); g != nil {
		tryObjs = append(tryObjs, g)
	}
	try := container.NewVBox(append(tryObjs, container.NewHBox(p.call), p.result)...)
	objs := []fyne.CanvasObject{container.NewHBox(head...)}
	if b := p.statusBlock(); b != nil { // toolmarks.go
		objs = append(objs, b)
	}
	p.obj = container.NewVBox(append(objs, desc, schema, widget.NewSeparator(), try)...)
	return p
}

func newArgInput(name string, raw json.RawMessage, required bool) *argInput {
	var s propSchema
	_ = json.Unmarshal(raw, &s)
	in := &argInput{name: name, typ: simpleType(s.Type), required: required, err: errorLabel()}
	switch in.typ {
	case "boolean":
		in.check = widget.NewCheck("", nil)
	case "string":
		var opts []string
		for _, e := range s.Enum {
			if str, ok := e.(string); ok {
				opts = append(opts, str)
			}
		}
		if len(opts) > 0 && len(opts) == len(s.Enum) {
			in.choice = widget.NewSelect(opts, nil)
			break
		}
		in.entry = widget.NewEntry()
	case "number", "integer":
		in.entry = widget.NewEntry()
		in.entry.SetPlaceHolder(in.typ)
	default:
		in.entry = widget.NewMultiLineEntry()
		in.entry.TextStyle = fyne.TextStyle{Monospace: true}
		in.entry.SetPlaceHolder("JSON")
		var t string
		if json.Unmarshal(s.Type, &t) == nil && t != "" {
			in.entry.SetPlaceHolder("JSON " + t)
		}
		in.entry.SetMinRowsVisible(2)
	}
	return in
}

// cell returns the field with its description and error.
func (in *argInput) cell(raw json.RawMessage) fyne.CanvasObject {
	var s propSchema
	_ = json.Unmarshal(raw, &s)
	var field fyne.CanvasObject
	switch {
	case in.check != nil:
		field = in.check
	case in.choice != nil:
		field = in.choice
	default:
		field = in.entry
	}
	return container.NewVBox(field, hintLabel(s.Description), in.err)
}

// arguments returns the call's arguments as a JSON object, or false after
// showing what is wrong next to the fields.
func (p *tryPanel) arguments() (json.RawMessage, bool) {
	if p.raw != nil {
		setText(p.rawErr, "")
		text := strings.TrimSpace(p.raw.Text)
		if text == "" {
			text = "{}"
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
			setText(p.rawErr, fmt.Sprintf("is not a JSON object: %v", err))
			return nil, false
		}
		return json.RawMessage(text), true
	}
	args := map[string]json.RawMessage{}
	ok := true
	for _, in := range p.inputs {
		setText(in.err, "")
		if in.check != nil {
			if in.check.Checked || in.required {
				args[in.name] = marshal(in.check.Checked)
			}
			continue
		}
		text := ""
		if in.choice != nil {
			text = in.choice.Selected
		} else {
			text = in.entry.Text
			if in.typ != "string" {
				text = strings.TrimSpace(text)
			}
		}
		if text == "" {
			if in.required {
				setText(in.err, "is required")
				ok = false
			}
			continue
		}
		switch in.typ {
		case "string":
			args[in.name] = marshal(text)
		case "number":
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				setText(in.err, fmt.Sprintf("%q is not a number", text))
				ok = false
				continue
			}
			args[in.name] = marshal(f)
		case "integer":
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				setText(in.err, fmt.Sprintf("%q is not a whole number", text))
				ok = false
				continue
			}
			args[in.name] = marshal(n)
		default:
			if !json.Valid([]byte(text)) {
				var x any
				err := json.Unmarshal([]byte(text), &x)
				setText(in.err, fmt.Sprintf("is not valid JSON: %v", err))
				ok = false
				continue
			}
			args[in.name] = json.RawMessage(text)
		}
	}
	return marshal(args), ok
}

// callResult is what the window reads of a CallToolResult.
type callResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// text writes a result for a person: text content as it is, anything else
// as indented JSON.
func (r callResult) text() string {
	var parts []string
	for _, c := range r.Content {
		var t struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &t) == nil && t.Type == "text" {
			parts = append(parts, t.Text)
			continue
		}
		parts = append(parts, indentJSON(c))
	}
	if len(parts) == 0 && len(r.StructuredContent) > 0 {
		parts = append(parts, indentJSON(r.StructuredContent))
	}
	if len(parts) == 0 {
		return "(the tool returned no content)"
	}
	return strings.Join(parts, "\n\n")
}

// run calls the tool (servers.call) and shows the result or the error.
func (p *tryPanel) run() {
	args, ok := p.arguments()
	if !ok {
		return
	}
	p.call.Disable()
	p.result.Importance = widget.LowImportance
	setText(p.result, "Calling "+p.tool.Name+"…")
	var res callResult
	// No bound but the host's: it cancels a call after the server's
	// callTimeout.
	p.v.w.callWithin(0, func(ctx context.Context) error {
		raw, err := p.v.w.live.Call(ctx, p.v.server, p.tool.Name, args)
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, &res)
	}, func(err error) {
		if p.mayCall() {
			p.call.Enable()
		}
		switch {
		case err != nil:
			p.result.Importance = widget.DangerImportance
			setText(p.result, err.Error())
		case res.IsError:
			p.result.Importance = widget.DangerImportance
			setText(p.result, "The tool reported an error:\n"+res.text())
		default:
			p.result.Importance = widget.MediumImportance
			setText(p.result, res.text())
		}
	})
}
