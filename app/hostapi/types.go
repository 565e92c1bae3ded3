package hostapi

import "time"

// ConfigStatus says whether the config file is in force.
type ConfigStatus struct {
	Path  string `json:"path"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"` // the file could not be used; the last good config is in force
	// Problems are the problems of the file in force, each with where it
	// is (Server, Key) and its remedy where it has one. On the wire they
	// travel twice (see wire.go): as data, and as the sentences an older
	// client reads.
	Problems []Problem `json:"-"`
	// NoGoodConfig: the file cannot be used (Error) and the host has read
	// no good one since it started, so no config is in force and no
	// server runs (rather than "the last good config is in force").
	NoGoodConfig bool `json:"noGoodConfig,omitempty"`
}

// Info is what host.info returns.
type Info struct {
	PID        int    `json:"pid"`
	Version    string `json:"version"`
	Socket     string `json:"socket"`
	ConfigPath string `json:"configPath"`
	LogPath    string `json:"logPath,omitempty"`
	OnDemand   bool   `json:"onDemand"`
	Service    bool   `json:"service"` // run by the OS's service manager
	// UserEnvFilled are the variables (HOME, USER, ...) the host took from
	// the user database because the environment it was started with
	// lacked them; its servers get them from there too.
	UserEnvFilled []string `json:"userEnvFilled,omitempty"`
	// Clients counts the connections to the local API: the tray and the
	// window, the CLI, a 'switchboard logs --follow'. AI apps are not
	// among them: they connect to the gateway (AIClients).
	Clients int `json:"clients"`
	// AIClients counts the connections to the gateway's socket: the
	// bridges that AI apps run (usually one per running app), and any
	// other MCP client of that socket. The gateway's HTTP endpoint is not
	// counted: its sessions outlive their requests (up to an hour idle),
	// so a client that is there cannot be told from one that left.
	AIClients int `json:"aiClients"`
	// AIApps are the names that the apps on those connections gave in
	// their MCP handshake (clientInfo.name: "claude-ai", "cursor-vscode"),
	// each once, sorted. A connection whose app has not begun its session
	// yet (initialize; in the 2026-07-28 era, its first request after
	// server/discover), or gave no name, is counted in AIClients only.
	AIApps    []string     `json:"aiApps,omitempty"`
	StartedAt time.Time    `json:"startedAt"`
	Path      string       `json:"path"` // the PATH servers get
	PathError string       `json:"pathError,omitempty"`
	Config    ConfigStatus `json:"config"`
	Swept     int          `json:"swept"` // survivors of a killed host killed at start
	// PinsPath is the tool pin file (docs/trust.md); "" when the host pins
	// nothing. PinsError is a problem with it found at start: a damaged
	// file moved aside (the host started an empty one), or one it cannot
	// use (pinning is then off).
	PinsPath  string `json:"pinsPath,omitempty"`
	PinsError string `json:"pinsError,omitempty"`
	// Activity is the state of the activity log (issue 14 §1).
	Activity ActivityStatus `json:"activity"`
	// AppConfigs are the entries of the connected AI apps' configs that
	// Switchboard did not write (a server planted straight into an app's
	// config, or a changed entry); a TopicAppConfigs event carries the
	// list again when it changes.
	AppConfigs []AppConfigAlert `json:"appConfigs,omitempty"`
	// Registries are the config's registries and the host's background
	// sync of their indexes; Updates is how many servers added from a
	// registry have a newer release old enough to offer (registry
	// outdated's count); RegistryNotices are the latest status changes
	// of their entries (registry.go). A TopicRegistry event carries them
	// again after each sync.
	Registries      []RegistryStatus `json:"registries,omitempty"`
	Updates         int              `json:"updates,omitempty"`
	RegistryNotices []RegistryNotice `json:"registryNotices,omitempty"`
}

// AppConfigAlert is one entry of a connected AI app's config that
// Switchboard did not write, or that changed since it did
// (docs/clients.md, "Entries Switchboard did not write").
type AppConfigAlert struct {
	App     string `json:"app"`     // the app's ID: "cursor"
	AppName string `json:"appName"` // "Cursor"
	Config  string `json:"config"`  // the config file
	Entry   string `json:"entry"`   // the entry's name
	Runs    string `json:"runs,omitempty"`
	Changed bool   `json:"changed,omitempty"` // an entry Switchboard knew, changed
	Bridge  bool   `json:"bridge,omitempty"`  // Switchboard's own entry, changed
	Line    string `json:"line"`              // a few words, for a menu line
	Message string `json:"message"`           // the whole report with what to do
}

// ServerStatus is what the host tells its clients about a server.
type ServerStatus struct {
	Name            string    `json:"name"`
	State           State     `json:"state"`
	Era             string    `json:"era,omitempty"`
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	PID             int       `json:"pid,omitempty"`
	StartedAt       time.Time `json:"startedAt,omitzero"`
	Restarts        int       `json:"restarts"`
	Failures        int       `json:"failures"`
	NextAttempt     time.Time `json:"nextAttempt,omitzero"`
	// FailedAt is when the server last failed for good (state failed): a
	// new failure after a start has a new time, the same state.
	FailedAt   time.Time `json:"failedAt,omitzero"`
	LastError  string    `json:"lastError,omitempty"`
	LastReason string    `json:"lastReason,omitempty"`
	Stderr     []string  `json:"stderr,omitempty"`
	Tools      int       `json:"tools"`
	Prompts    int       `json:"prompts"`
	Resources  int       `json:"resources"`
	Command    string    `json:"command"`
	// URL is a remote server's address (Command is empty), without its
	// query; Transport is "http" or "sse" (docs/remote.md).
	URL          string   `json:"url,omitempty"`
	Transport    string   `json:"transport,omitempty"`
	Args         []string `json:"args,omitempty"`
	Resolved     string   `json:"resolved,omitempty"`
	ResolveError string   `json:"resolveError,omitempty"`
	// ResolveInLastError: LastError is (or quotes) ResolveError, so a
	// front end that shows both says it once.
	ResolveInLastError bool `json:"resolveInLastError,omitempty"`
	Disabled           bool `json:"disabled,omitempty"`
	UserStopped        bool `json:"userStopped,omitempty"`
	// Problems are the problems of the server's entry (an entry with
	// problems is not run: State invalid, or its running predecessor
	// keeps running), each with its Key and its Remedy where it has one.
	// On the wire they travel twice (see wire.go): as data, and as the
	// sentences an older client reads.
	Problems []Problem `json:"-"`
	Secrets  []string  `json:"secrets,omitempty"`
	// Issues are what the server needs from the user, as data: the
	// secret it waits for, with its Remedy (set_secret, unlock_keyring);
	// its command, not found in the PATH the host gives servers, with
	// the Remedy install. A front end offers the remedy rather than read
	// LastError or ResolveError.
	Issues []Problem `json:"issues,omitempty"`
	// Broken: the server is starting or restarting, but an issue that
	// needs the user (its command not found) stops every attempt, so its
	// retries cannot succeed until the user acts (app/host's Broken). A
	// front end says so and why at once, from the first attempt, rather
	// than "restarting".
	Broken bool `json:"broken,omitempty"`
	// Held is the number of its tools held for the user's review (a new
	// or changed definition: docs/trust.md), which apps do not see until
	// the user accepts them; 0 from a host without a pin store (or older).
	Held int `json:"held,omitempty"`
	// Preparing, when not empty, says what the host does before it starts
	// (or restarts) the server: "fetching the npm package X" while an
	// added npx entry's package is downloaded (State "starting" if nothing
	// runs yet).
	Preparing string `json:"preparing,omitempty"`
	// Sandbox is what confines the server (sandbox.go); nil without one.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// The event topics a client subscribes to (api.Client.Subscribe), and the
// payload of each.
const (
	TopicState  = "server.state" // ServerStatus (State "removed": the entry left the config)
	TopicTools  = "server.tools" // ToolsEvent
	TopicLog    = "server.log"   // LogLine
	TopicConfig = "config"       // ConfigStatus
	TopicHost   = "host"         // HostEvent
	TopicTrust  = "server.trust" // TrustEvent
	// TopicAppConfigs carries Info.AppConfigs ([]AppConfigAlert) when it
	// changes.
	TopicAppConfigs = "apps.configs"
)

// Topics are every topic, for a client that follows them all.
func Topics() []string {
	return []string{TopicState, TopicTools, TopicConfig, TopicHost, TopicLog, TopicApprovals, TopicRequests, TopicAppConfigs, TopicRegistry}
}

// LogLine is one stderr line of a server.
type LogLine struct {
	Server string    `json:"server"`
	Line   string    `json:"line"`
	Time   time.Time `json:"time,omitzero"` // when the host read it; zero from an older host
}

// ToolsEvent says that a server's lists changed, with their sizes.
type ToolsEvent struct {
	Name      string `json:"name"`
	Tools     int    `json:"tools"`
	Prompts   int    `json:"prompts"`
	Resources int    `json:"resources"`
}

// TrustEvent says that the tools held for review changed: Held is the
// number per server (servers with none left out). Each server whose count
// changed also gets a TopicState event with its status's Held.
type TrustEvent struct {
	Held map[string]int `json:"held"`
}

// HostEvent says that the host is stopping (State "stopping") and why.
type HostEvent struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}
