package hostapi

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The host's API is the list of [Method] descriptors below, each with its
// name on the wire and, as type parameters, its params and its result.
// The host's handler of a method takes its P and returns its R (the one
// handler table in app/host), and app/client's Call sends a P and
// decodes an R: the compiler holds both ends to this one declaration,
// and a contract test (app/host) checks that every method has a handler
// and a client method, and that the host answers no other name.
//
// Adding a method is a descriptor here (in [Methods] too), its handler in
// the host's table, a method in app/client, and [APIVersion]'s minor
// version raised.

// Method describes one method of the host's API: Name is its name on the
// wire ("servers.start"); P is the type of its params and R of its
// result ([None] for none).
type Method[P, R any] struct {
	Name string
}

// MethodName returns the method's name on the wire.
func (m Method[P, R]) MethodName() string { return m.Name }

// Descriptor is any [Method], as [Methods] lists them.
type Descriptor interface {
	MethodName() string
}

// None is the params or the result of a method that has none: a client
// sends no params, and the host answers a null result.
type None struct{}

// APIVersion is the version of this API, "major.minor", which the host
// states in its greeting ({"hello": {..., "api": "1.0"}}). The minor
// version rises when a method or an optional field is added: a client
// may talk to a host of a lower minor version (a method the host lacks
// fails with an error that names both versions), as a host and its
// clients of one install meet across an upgrade. The major version
// rises when a method is removed or renamed, or a field changes its type
// or meaning: a client refuses a host of another major version, with an
// error that names both and says which to restart or update. A host that
// states no version predates it and is taken as 1.0.
//
// The protocol (framing, ids, events: app/api's ProtocolVersion) has a
// version of its own.
const APIVersion = "1.3"

// The methods of the host's API.
var (
	// MethodHostInfo returns the host's [Info].
	MethodHostInfo = Method[None, Info]{"host.info"}
	// MethodHostStop stops every server, then the host; the connection
	// ends.
	MethodHostStop = Method[None, StopResult]{"host.stop"}
	// MethodConfigStatus says whether the config file is in force.
	MethodConfigStatus = Method[None, ConfigStatus]{"config.status"}

	// MethodServersList returns every server's status, sorted by name.
	MethodServersList = Method[None, []ServerStatus]{"servers.list"}
	// MethodServersStart starts a server (Name) or all of them (All).
	MethodServersStart = Method[NameParams, None]{"servers.start"}
	// MethodServersStop stops a server (Name) or all of them (All); with
	// Wait it answers once the stop ladders finished.
	MethodServersStop = Method[NameParams, None]{"servers.stop"}
	// MethodServersRestart restarts a server (Name) or all of them (All).
	MethodServersRestart = Method[NameParams, None]{"servers.restart"}
	// MethodServersPut adds (Create) or replaces an entry of the config.
	MethodServersPut = Method[PutParams, None]{"servers.put"}
	// MethodServersGet returns an entry (Name) of the config as written.
	MethodServersGet = Method[NameParams, EntryResult]{"servers.get"}
	// MethodServersRemove removes an entry (Name).
	MethodServersRemove = Method[NameParams, None]{"servers.remove"}
	// MethodServersRename renames an entry.
	MethodServersRename = Method[RenameParams, None]{"servers.rename"}
	// MethodServersEnable enables an entry (Name).
	MethodServersEnable = Method[NameParams, None]{"servers.enable"}
	// MethodServersDisable disables an entry (Name).
	MethodServersDisable = Method[NameParams, None]{"servers.disable"}
	// MethodServersLogs returns a server's (Name) kept stderr lines.
	MethodServersLogs = Method[NameParams, LogsResult]{"servers.logs"}
	// MethodServersTools returns a running server's (Name) tools.
	MethodServersTools = Method[NameParams, ToolsResult]{"servers.tools"}
	// MethodServersCall calls a server's tool and returns its
	// CallToolResult as the server sent it.
	MethodServersCall = Method[CallParams, *mcp.CallToolResult]{"servers.call"}
	// MethodServersLogin starts the OAuth sign-in of a remote server
	// (Name). The host listens on a loopback port for the browser's
	// return; the server's state is "signing in" until it comes back (or
	// 10 minutes pass), then running, or "sign-in needed" with LastError
	// saying why.
	MethodServersLogin = Method[NameParams, LoginResult]{"servers.login"}
	// MethodServersLogout deletes a remote server's (Name) tokens from the
	// keyring, revoking them where the authorization server can.
	MethodServersLogout = Method[NameParams, LogoutResult]{"servers.logout"}

	// MethodSecretsSet stores a secret and restarts the servers that use
	// it.
	MethodSecretsSet = Method[SecretParams, SecretSetResult]{"secrets.set"}
	// MethodSecretsDelete deletes a secret (Name).
	MethodSecretsDelete = Method[SecretParams, None]{"secrets.delete"}
	// MethodSecretsList lists the stored secrets, never a value.
	MethodSecretsList = Method[None, []SecretInfo]{"secrets.list"}

	// MethodGatewayTools returns the gateway's endpoints and naming.
	MethodGatewayTools = Method[None, GatewayInfo]{"gateway.tools"}
	// MethodGatewayReloadToken makes the HTTP endpoint read its bearer
	// token from the keyring again: 'switchboard gateway token --new'
	// calls it after storing a new token. The endpoint reads the keyring
	// only then and when it starts, never on a request.
	MethodGatewayReloadToken = Method[None, None]{"gateway.reloadToken"}

	// MethodToolsCost returns what an AI app pays in tokens for the tools
	// and prompts the gateway gives it (docs/toolsearch.md).
	MethodToolsCost = Method[CostParams, Cost]{"tools.cost"}
	// MethodToolsReview returns the tools held for review of a server
	// (Name; "" for every server).
	MethodToolsReview = Method[NameParams, ReviewResult]{"tools.review"}
	// MethodToolsAccept trusts the definition a held tool presents.
	MethodToolsAccept = Method[ToolParams, None]{"tools.accept"}
	// MethodToolsReject hides a tool until its definition changes again.
	MethodToolsReject = Method[ToolParams, None]{"tools.reject"}

	// MethodActivityQuery returns the activity log's records, newest
	// first (docs/activity.md).
	MethodActivityQuery = Method[ActivityQueryParams, ActivityQueryResult]{"activity.query"}
	// MethodActivityCounts returns per-server calls, errors and median
	// durations.
	MethodActivityCounts = Method[ActivityCountsParams, ActivityCountsResult]{"activity.counts"}

	// MethodApprovalsList returns the calls waiting for approval, oldest
	// first.
	MethodApprovalsList = Method[None, []Approval]{"approvals.list"}
	// MethodApprovalsDecide decides a waiting call.
	MethodApprovalsDecide = Method[DecideParams, None]{"approvals.decide"}

	// MethodRequestsList returns the servers' questions waiting for the
	// user, oldest first. API 1.3.
	MethodRequestsList = Method[None, []InputRequest]{"requests.list"}
	// MethodRequestsAnswer answers (or declines, or cancels) a waiting
	// question; a form's values are checked against its schema, every
	// problem at once ([Problem]s in the error). API 1.3.
	MethodRequestsAnswer = Method[AnswerParams, None]{"requests.answer"}

	// MethodProfilesList lists the config's profiles in the file's order
	// (the config's top-level "profiles": named selections of servers and
	// tools that a bridge asks for with --profile).
	MethodProfilesList = Method[None, []ProfileInfo]{"profiles.list"}
	// MethodProfilesPut adds or replaces a profile.
	MethodProfilesPut = Method[ProfilePutParams, None]{"profiles.put"}
	// MethodProfilesRemove removes a profile (Name).
	MethodProfilesRemove = Method[NameParams, None]{"profiles.remove"}
	// MethodProfilesRename renames a profile.
	MethodProfilesRename = Method[RenameParams, None]{"profiles.rename"}

	// MethodRegistrySearch searches the registries' local indexes and the
	// built-in catalog (never the network: docs/registry.md).
	MethodRegistrySearch = Method[RegistrySearchParams, RegistrySearchResult]{"registry.search"}
	// MethodRegistryShow returns an entry's card: what it would run,
	// before anything of it runs.
	MethodRegistryShow = Method[RegistryShowParams, RegistryShowResult]{"registry.show"}
	// MethodRegistryAdd adds an entry as a server, as 'switchboard
	// registry add' does (app/install's Add): an npm package installed
	// locked, secrets into the keyring first. An install can take a
	// minute; the host answers its other calls meanwhile.
	MethodRegistryAdd = Method[RegistryAddParams, RegistryAddResult]{"registry.add"}

	// MethodBundlesInspect returns a bundle file's card (.mcpb: its
	// signature, manifest, options and what it would run, every problem
	// at once) without keeping anything of it. API 1.2.
	MethodBundlesInspect = Method[BundleInspectParams, BundleInspectResult]{"bundles.inspect"}
	// MethodBundlesInstall installs a bundle file as a server, as
	// 'switchboard bundles install' does (app/install's AddBundle):
	// sensitive values into the keyring first, then its first start.
	// API 1.2.
	MethodBundlesInstall = Method[BundleInstallParams, BundleInstallResult]{"bundles.install"}
)

// methods is every method of the API, in the order above.
var methods = []Descriptor{
	MethodHostInfo, MethodHostStop, MethodConfigStatus,
	MethodServersList, MethodServersStart, MethodServersStop, MethodServersRestart,
	MethodServersPut, MethodServersGet, MethodServersRemove, MethodServersRename,
	MethodServersEnable, MethodServersDisable, MethodServersLogs, MethodServersTools,
	MethodServersCall, MethodServersLogin, MethodServersLogout,
	MethodSecretsSet, MethodSecretsDelete, MethodSecretsList,
	MethodGatewayTools, MethodGatewayReloadToken,
	MethodToolsCost, MethodToolsReview, MethodToolsAccept, MethodToolsReject,
	MethodActivityQuery, MethodActivityCounts,
	MethodApprovalsList, MethodApprovalsDecide,
	MethodRequestsList, MethodRequestsAnswer,
	MethodProfilesList, MethodProfilesPut, MethodProfilesRemove, MethodProfilesRename,
	MethodRegistrySearch, MethodRegistryShow, MethodRegistryAdd,
	MethodBundlesInspect, MethodBundlesInstall,
}

// Methods returns every method of the host's API.
func Methods() []Descriptor { return slices.Clone(methods) }
