// Package aiapps connects desktop AI apps to Switchboard: it finds each
// app's MCP config file, and adds to it (or removes) the one entry,
// named "switchboard", that runs `switchboard bridge`.
//
// # Apps and paths
//
// [Apps] are Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini
// CLI, LM Studio, Zed, OpenAI Codex, GitHub Copilot CLI, Cline, Continue,
// Goose, Kiro CLI (with Amazon Q CLI's file), JetBrains AI Assistant and
// JetBrains Junie; [App.Project] gives Claude Code's project scope
// (DIR/.mcp.json). [App.Paths] is a pure function of an [Env] (an OS and
// its environment: HOME or USERPROFILE, APPDATA, LOCALAPPDATA,
// XDG_CONFIG_HOME and each app's own variables), so every OS's paths are
// tested on any machine (testdata/paths.golden). [App.Locate] then picks
// the file with a function that says which paths exist: Claude Desktop on
// Windows has two, its MSIX package's LocalCache (the package folder
// matched as Claude_*) and %APPDATA%; Cline and Kiro CLI have a current and
// an older file; LM Studio's home is named by a pointer file. An app is
// "installed" when its config file or the folder it creates on its first
// run exists.
//
// # Editing
//
// [App.Parse] reads a file as JSON with comments (hujson), and [Doc] changes
// it in place: [Doc.SetBridge], [Doc.Disconnect], [Doc.Replace] (for an
// import). Every byte outside the change stays: other keys and entries,
// comments, indentation, trailing commas, CRLF line endings, a byte order
// mark. A new entry takes the style of its neighbours (one per line with
// their indentation, or all on one line) and goes last in the servers
// object; a servers key that does not exist is added last in the file.
// Connect then disconnect gives the file back byte for byte, except that a
// missing or empty file stays an object, and in an app's own mcp.json
// ([App.OwnFile]) a servers object connect added stays as {}; in a settings
// file a servers object left empty goes. A file that does not parse is
// never rewritten.
//
// Codex's TOML and Goose's and Continue's YAML are read with their
// languages' parsers and changed as text (see textFormat): an entry is a
// run of whole lines added or removed, every edit is checked by parsing
// the result, and a file written in a form these edits do not handle is
// refused when it is parsed.
//
// The entry holds the command (the switchboard binary by its absolute
// path) and its arguments (bridge [--servers a,b]) in the app's shape
// ("type": "stdio" for VS Code and Claude Code, "source": "custom" for
// Zed), never a token, a secret or an env.
//
// # Importing
//
// [PlanImport] decides, entry by entry, what an import moves into
// Switchboard and what stays in the app, and why: remote entries (a URL, or
// the mcp-remote proxy), entries with a variable that only has a value
// inside the app (VS Code's ${workspaceFolder} or ${input:ID}, an unset
// environment variable), and entries Switchboard would refuse to save.
// Variables whose value does not depend on the app (${userHome},
// ${env:NAME}, Claude Code's ${VAR:-default}) are expanded. The CLI's dry
// run, its import and the window all use the one plan. Claude Code's
// projects are read with [Doc.ClaudeProjects], [Doc.ClaudeProject] (a
// project's block of ~/.claude.json, edited in place) and
// [ClaudeProjectFile] (a project's .mcp.json).
//
// # Writing
//
// [WriteFile] refuses if the file changed since it was read, backs the old
// file up next to it (FILE.switchboard-backup-TIME, the last [KeepBackups]
// kept), and writes atomically (a temporary file in the same directory,
// synced, renamed over the file) with the file's mode; a symbolic link
// stays a link. [Diff] shows a change for --dry-run, with [Redact] hiding
// the literal secrets [Doc.SecretValues] finds.
//
// # Entries Switchboard did not write
//
// [Written] (the file [WrittenFile] in Switchboard's state directory)
// records, per config file that connect or import wrote, a [Fingerprint]
// of each entry it held then. [Written.Check] and [CheckAll] return the
// entries not in the record or changed since ([Foreign], with the remedy
// in its String): a server planted straight into the app's config, or a
// changed bridge entry.
package aiapps
