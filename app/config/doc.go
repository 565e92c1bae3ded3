// Package config reads, checks, writes and watches Switchboard's config
// file: one JSON file of the MCP servers to run.
//
// # The file
//
// The file is config.json in a "switchboard" folder of the user's config
// directory ([DefaultPath]); $SWITCHBOARD_CONFIG, or the --config flag, names
// another. Its "mcpServers" object has the shape of Claude Desktop's, so an
// existing block can be pasted in:
//
//	{
//	  "version": 1,
//	  "mcpServers": {
//	    "github": {
//	      "command": "npx",
//	      "args": ["-y", "@modelcontextprotocol/server-github"],
//	      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${keyring:github-token}"},
//	      "termGrace": 5000
//	    }
//	  }
//	}
//
// "version" is [CurrentVersion]; a file without one is version 0 and is
// migrated on load (migrate.go holds the steps, testdata/migrate a fixture
// per version). A file with a newer version is refused, never overwritten.
//
// Every engine option is a key of an entry:
//
//	key                      type                       default
//	command                  string                     required
//	args                     [string]                   []
//	env                      {string: string}           {}
//	cwd                      string (absolute)          the host's working directory
//	stderr                   "inherit", "discard",      "capture"
//	                         "capture", {"file": path}
//	inheritEnv               [string] (variable names)  []
//	allowBatchFiles          bool                       false
//	disabled                 bool                       false
//	tools                    {"allow": [pattern],       every tool
//	                          "deny": [pattern]}
//	trust                    "pin", "auto"              "pin" (docs/trust.md)
//	start                    "always", "on-demand"      "always", or defaults.start (docs/sleep.md)
//
// The numeric options (generated from [Options]; a test checks it):
//
//	key               unit      default            range
//	maxMessageBytes   bytes     8388608 (8 MiB)    1024 to 1073741824
//	writeQueueBytes   bytes     16777216 (16 MiB)  1024 to 1073741824
//	maxJunkLines      lines     10                 0 to 1000000
//	maxReconnects     attempts  5                  0 to 1000
//	stdinGrace        ms        2000 (2 s)         0 to 600000
//	termGrace         ms        2000 (2 s)         0 to 600000
//	probeTimeout      ms        3000 (3 s)         1 to 600000
//	handshakeTimeout  ms        60000 (1 min)      1 to 3600000
//	callTimeout       ms        300000 (5 min)     1 to 86400000
//	approvalTimeout   ms        120000 (2 min)     1000 to 86400000
//	idleStop          ms        600000 (10 min)    1000 to 86400000
//
// They are whole numbers. An omitted key means the default. An explicit 0
// is a value where the range starts at 0 (it becomes the engine's -1,
// "zero, not default") and an error elsewhere. A reserved option is read,
// checked and put in the spec, but nothing acts on it yet. [Options] is
// the one declaration of each: decoding, the check, the spec, the window's
// form and these tables come from it. Tool patterns are those of
// [path.Match].
//
// The top-level "defaults" object ({"start": "on-demand", "idleStop":
// 600000}) sets the default of start and idleStop for every entry that
// does not set them. A "start" that is not a start mode is a notice
// ([Server.Notices]), not a problem: the entry runs as "always".
//
// An unknown key is kept as written; one within two edits of a known key
// ("arsg") is a problem of the entry ("did you mean "args"? Rename it, or
// remove it"): the option the user meant is not set, so the entry is not
// started (a running predecessor keeps running) until the key is fixed. Variable names (env, inheritEnv)
// are checked by [CheckEnvName]: no space, '=' or control character.
//
// Server names match ^[a-z0-9][a-z0-9-]{0,30}$: they prefix tool names, so
// they never contain "__". [NormalizeName] suggests a valid one.
//
// Entries with a "url" (and "type" "http", the default, or "sse") are
// remote servers: see remote.go and docs/remote.md. They take "headers"
// (values may embed ${keyring:NAME}; a literal secret is a problem) and
// "oauth", and the options of every entry; the options of a process are
// problems on them. [Server.RemoteSpec] is what the host connects with.
//
// # Secrets
//
// The file never holds a secret, only references: an env value may embed
// ${keyring:NAME} ("Bearer ${keyring:gh}"), resolved from the OS keyring when
// the server is spawned; "$${" is a literal "${". [ParseEnvValue] turns a
// value into a [serverspec.EnvValue]. Any other ${...} form is an error.
//
// # Checking
//
// [Load] fails only when the file cannot be used at all: unreadable, not JSON
// (a [*SyntaxError] with line and column), of a newer version, with an
// "mcpServers" that is not an object (null, a list, a string: taken as "no
// servers" it would stop every server for a typo), larger than
// [MaxFileSize] (4 MiB), or not a regular file (a FIFO, a device such as
// /dev/zero, a directory: a [*FileError], refused without reading; the open
// uses O_NONBLOCK so that a FIFO cannot hang it). [Update] and the [Watcher]
// read the file the same way. Everything else is collected in a [Report],
// every problem at once, each naming the entry (or, for the file's own keys
// such as gateway.httpPort, the key), the key and the remedy:
//
//	mcpServers.files.cwd: "/srv/x" does not exist: create it or choose another directory
//
// An entry with problems is marked invalid ([Server.Problems]) and not run;
// the other entries are usable ([Server.Valid]; the host builds their engine
// spec, app/host/spec.go).
//
// The top-level "profiles" ([Profile], profiles.go) names selections of
// servers and tools that a bridge asks for with --profile. Its problems
// are the file's (keys profiles.NAME...); a profile that names a server
// mcpServers lacks is a [Problem.Warning], and no profile problem touches
// the servers.
//
// # Writing
//
// Writes are atomic (a temporary file in the same directory, synced, renamed
// over the file, the directory synced), mode 0600, and keep what this version
// does not know: unknown top-level keys and unknown keys of entries, the
// order of entries, keys and env variables. Output is indented by two
// spaces. Writers that are not the host use [Update], which takes a lock
// file (path+".lock") so that writers take turns, and refuses to rename if
// the file changed under it.
//
// # Hot reload
//
// The host watches the file with a [Watcher] and writes it with
// [Watcher.Update], so that its own writes do not reload:
//
//	f, err := config.Load(path)  // or config.New() if it does not exist
//	w := config.NewWatcher(path, 0, func() { reload <- struct{}{} })
//	w.Ignore(f.Sum())            // the content the host already has
//	go w.Run(ctx)
//	...
//	// on reload: g, err := config.Load(path); if err != nil, keep f (an
//	// editor may be half-way through a write) and show err; else f = g
//
// A host keeps its last good config whenever the file cannot be used, and
// also when the file is removed while the host had one (an empty file is
// refused too, so the two agree; a removal is as likely a mistake, or a
// sync tool half-way through, as a wish to stop every server): its status
// says "config.json was removed: restore it ... or save one with
// "mcpServers": {} to stop every server", and a change made through the host
// meanwhile ([Watcher.UpdateOr]) writes the config in force back with the
// change. A host started without a file simply has no servers.
//
// The watcher watches the directory, not the file (editors save by renaming
// a new file over the old one), debounces bursts of events, and calls back
// only when the file's content differs from every content the host is known
// to have: the last one seen, and those the host wrote itself through
// [Watcher.Update] (or declared with [Watcher.Ignore]). After a file that
// could not be read, any content is a change. A config.json that is a
// symbolic link (a dotfiles manager's) is followed: the directory of its
// final target is watched too, and the link is resolved again whenever it
// changes, so that editing the target and re-pointing the link both reload;
// writes go through the link to the target. A host write that
// started from content the host had not seen yet is reported, so that an
// editor's change is never missed.
package config
