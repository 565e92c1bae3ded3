package host

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
)

// installer is what provides a command that servers are commonly started
// with, and where to get it.
type installer struct{ program, url string }

// installers are the programs behind the commands MCP servers are usually
// run with (the catalog's, and those of the AI apps' examples), by
// command name. A command not listed gets the install remedy without a
// program: its name is all the host knows.
var installers = map[string]installer{
	"npx":     {"Node.js", "https://nodejs.org/en/download"},
	"npm":     {"Node.js", "https://nodejs.org/en/download"},
	"node":    {"Node.js", "https://nodejs.org/en/download"},
	"uvx":     {"uv", "https://docs.astral.sh/uv/getting-started/installation/"},
	"uv":      {"uv", "https://docs.astral.sh/uv/getting-started/installation/"},
	"docker":  {"Docker", "https://docs.docker.com/get-started/get-docker/"},
	"podman":  {"Podman", "https://podman.io/docs/installation"},
	"python":  {"Python", "https://www.python.org/downloads/"},
	"python3": {"Python", "https://www.python.org/downloads/"},
	"py":      {"Python", "https://www.python.org/downloads/"},
	"pip":     {"Python", "https://www.python.org/downloads/"},
	"pip3":    {"Python", "https://www.python.org/downloads/"},
	"pipx":    {"pipx", "https://pipx.pypa.io/stable/installation/"},
	"bun":     {"Bun", "https://bun.sh/docs/installation"},
	"bunx":    {"Bun", "https://bun.sh/docs/installation"},
	"deno":    {"Deno", "https://docs.deno.com/runtime/getting_started/installation/"},
	"go":      {"Go", "https://go.dev/doc/install"},
	"java":    {"a Java runtime", "https://adoptium.net/"},
	"dotnet":  {".NET", "https://dotnet.microsoft.com/download"},
}

// CommandIssue is the issue of a server whose command is not found in the
// PATH the host gives servers (the engine's resolve error for a bare
// name), with the install remedy: the command, and for the common
// launchers the program that provides it and its install page. nil for
// any other error (an absolute path that cannot run says what to check
// itself) or none. The host resolves with its own PATH, which for a
// service or a login item may not be the terminal's: the remedy says
// that the host's PATH is the other way out.
//
// An entry that sets PATH in its env is looked up in that PATH: the issue
// is then at that key, and the remedy says so (EntryPATH).
func CommandIssue(server string, env map[string]engine.EnvValue, err error) *hostapi.Problem {
	return CommandIssueIn(server, env, err, "")
}

// CommandIssueIn is [CommandIssue] for a lookup in another PATH than the
// host's: pathName says which ("this terminal's PATH", for the command
// line without a host); "" is the host's.
func CommandIssueIn(server string, env map[string]engine.EnvValue, err error, pathName string) *hostapi.Problem {
	var nf *engine.NotFoundError
	if !errors.As(err, &nf) || nf.Err != nil {
		return nil
	}
	r := &hostapi.Remedy{Kind: hostapi.RemedyInstall, Server: server, Command: nf.Command}
	key, where, inPath := "command", "the PATH the host gives servers", "the PATH the host gives servers ('switchboard doctor' shows it)"
	if pathName != "" {
		where, inPath = pathName, pathName
	}
	for k := range env {
		if k == "PATH" || runtime.GOOS == "windows" && strings.EqualFold(k, "PATH") {
			r.EntryPATH = true
			key, where, inPath = "env."+k, "the PATH the entry sets (env."+k+")", "the entry's env."+k
		}
	}
	// On Windows the entry may name npx.cmd or NPX: the same program.
	base := strings.ToLower(path.Base(strings.ReplaceAll(nf.Command, `\`, "/")))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".cmd"), ".exe")
	if in, ok := installers[base]; ok {
		r.Program, r.URL = in.program, in.url
	}
	what := nf.Command
	if r.Program != "" {
		what = fmt.Sprintf("%s (which provides %s, from %s)", r.Program, nf.Command, r.URL)
	}
	r.Text = fmt.Sprintf("install %s, or add the directory that has %s to %s", what, nf.Command, inPath)
	return &hostapi.Problem{Server: server, Key: key, Message: err.Error(),
		Fact:   fmt.Sprintf("%q was not found in %s", nf.Command, where),
		Remedy: r}
}
