package hostapi

import (
	"encoding/json"
	"time"
)

// Requests (issue 30 §2): a server asks the user a question
// (elicitation/create, or an input_required round's elicitation) while
// serving an app's call, and the app cannot ask it (it declared no
// elicitation, or it is not the one call in flight on the server): the
// host holds the question until a person answers it in the tray, the
// window or 'switchboard answer'. Its methods: requests.list,
// requests.answer. Its event:
const (
	// TopicRequests carries the whole set of waiting questions
	// ([]InputRequest, oldest first) each time it changes.
	TopicRequests = "requests"
)

// The modes of an [InputRequest].
const (
	InputForm = "form" // fill in the fields of a schema
	InputURL  = "url"  // open a URL (a sign-in, a payment) after confirming its host
)

// The actions of an answer ([AnswerParams]).
const (
	ActionAccept  = "accept"  // the user answered (form: Content holds the values; url: the user opened it)
	ActionDecline = "decline" // the user said no
	ActionCancel  = "cancel"  // dismissed without a choice
)

// InputRequest is a server's question waiting for the user.
type InputRequest struct {
	ID     string `json:"id"`
	Server string `json:"server"`
	// App is the app whose call the server was serving ("" when it
	// cannot be told: several apps' calls were in flight).
	App     string `json:"app,omitempty"`
	Mode    string `json:"mode"`    // InputForm or InputURL
	Message string `json:"message"` // the server's words, for the user
	// Fields are the form's, in the schema's order (form mode).
	Fields []InputField `json:"fields,omitempty"`
	// Schema is the requested schema as the server sent it (form mode).
	Schema json.RawMessage `json:"schema,omitempty"`
	// URL is what to open (url mode), and URLHost its host, which the
	// user confirms before it opens.
	URL      string    `json:"url,omitempty"`
	URLHost  string    `json:"urlHost,omitempty"`
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline"` // cancelled if no one answers by then
}

// InputField is one field of a form, from the requested schema.
type InputField struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Type is "string", "number", "integer", "boolean" or "array" (a
	// multiple choice of Enum).
	Type     string `json:"type"`
	Format   string `json:"format,omitempty"` // string: "email", "uri", "date", "date-time"
	Required bool   `json:"required,omitempty"`
	// Enum are the allowed values (a choice), with EnumNames their
	// titles when the schema gives them.
	Enum      []string        `json:"enum,omitempty"`
	EnumNames []string        `json:"enumNames,omitempty"`
	Default   json.RawMessage `json:"default,omitempty"`
	Minimum   *float64        `json:"minimum,omitempty"`
	Maximum   *float64        `json:"maximum,omitempty"`
	MinLength *int            `json:"minLength,omitempty"`
	MaxLength *int            `json:"maxLength,omitempty"`
	MinItems  *int            `json:"minItems,omitempty"`
	MaxItems  *int            `json:"maxItems,omitempty"`
}

// AnswerParams answer a waiting question: Action is one of the Action*
// constants; Content is the form's values (a JSON object) with
// ActionAccept in form mode.
type AnswerParams struct {
	ID      string          `json:"id"`
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}
