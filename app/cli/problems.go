package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// printError prints an error after prefix ("switchboard:"). A host's
// error with problems (a *hostapi.Error, from the host or from the same
// checks run on the file without one) is printed one problem a line, each
// with where it is and its remedy as a command to run; any other error as
// its message, as before.
func printError(w io.Writer, prefix string, err error) {
	var he *hostapi.Error
	if !errors.As(err, &he) || len(he.Problems) == 0 {
		fmt.Fprintln(w, prefix, err)
		return
	}
	if len(he.Problems) == 1 {
		p := he.Problems[0]
		if r := remedyText(p); r != "" {
			fmt.Fprintln(w, prefix, withRemedy(p.Text(), r))
		} else {
			fmt.Fprintln(w, prefix, err) // its message says it all
		}
		return
	}
	fmt.Fprintln(w, prefix, headline(he))
	for _, p := range he.Problems {
		fmt.Fprintln(w, "  "+problemLine(p))
	}
}

// problemLine is a problem on one line: where it is, what is wrong, and
// its remedy as what to run or do on the command line. status, doctor and
// the errors of several problems print it (escaped where it may quote
// what a server wrote).
func problemLine(p hostapi.Problem) string {
	line := p.Message
	if r := remedyText(p); r != "" {
		line = withRemedy(p.Text(), r)
	}
	if where := problemPath(p); where != "" {
		line = where + ": " + line
	}
	return line
}

// withRemedy joins what is wrong and the remedy: "FACT: remedy", or after
// a question ("did you mean "args"?") "FACT Remedy".
func withRemedy(fact, remedy string) string {
	if strings.HasSuffix(fact, "?") && remedy != "" {
		return fact + " " + strings.ToUpper(remedy[:1]) + remedy[1:]
	}
	return fact + ": " + remedy
}

// installIssue is the server's issue with the install remedy (its command
// not found in the PATH the host gives servers), or nil.
func installIssue(s hostapi.ServerStatus) *hostapi.Problem {
	for i, p := range s.Issues {
		if p.Remedy != nil && p.Remedy.Kind == hostapi.RemedyInstall {
			return &s.Issues[i]
		}
	}
	return nil
}

// headline is the first line of an error of several problems.
func headline(he *hostapi.Error) string {
	server := he.Problems[0].Server
	for _, p := range he.Problems {
		if p.Server != server {
			server = ""
		}
	}
	switch {
	case he.Code == hostapi.CodeInvalidConfig && server != "":
		return fmt.Sprintf("server %q: its entry has %d problems, so nothing was changed:", server, len(he.Problems))
	case he.Code == hostapi.CodeInvalidConfig:
		return fmt.Sprintf("the config has %d problems, so nothing was changed:", len(he.Problems))
	}
	return fmt.Sprintf("%d problems:", len(he.Problems))
}

// problemPath names where a problem is, as the config file's path
// (mcpServers.files.cwd), or "" where the problem's words say it.
func problemPath(p hostapi.Problem) string {
	switch {
	case p.Key == hostapi.KeyName:
		return ""
	case p.Key == "" && p.Server == "":
		return ""
	}
	return p.Path()
}

// remedyText phrases a problem's remedy as what to run or do on the
// command line; "" when it has none, or one its Message already words
// (a kind this program does not know).
func remedyText(p hostapi.Problem) string {
	r := p.Remedy
	if r == nil {
		return ""
	}
	switch r.Kind {
	case hostapi.RemedySetSecret:
		if r.Secret != "" {
			return fmt.Sprintf("run 'switchboard secret set %s'", r.Secret)
		}
	case hostapi.RemedyEnable:
		if r.Server != "" {
			return fmt.Sprintf("run 'switchboard servers enable %s'", r.Server)
		}
	case hostapi.RemedyStart:
		if r.Server != "" {
			return fmt.Sprintf("run 'switchboard servers start %s'", r.Server)
		}
	case hostapi.RemedySignIn:
		if r.Server != "" {
			return fmt.Sprintf("run 'switchboard servers login %s'", r.Server)
		}
	case hostapi.RemedyEdit:
		if r.Server != "" {
			return fmt.Sprintf("change it with 'switchboard servers set %s', or remove it first ('switchboard servers remove %s')", r.Server, r.Server)
		}
	case hostapi.RemedyRenameKey:
		if r.From != "" && r.To != "" {
			return fmt.Sprintf("rename %q to %q in the entry, or remove it", r.From, r.To)
		}
	case hostapi.RemedyInstall:
		if r.Command != "" {
			what := r.Command
			if r.Program != "" && r.URL != "" {
				what = fmt.Sprintf("%s (it provides %s: %s)", r.Program, r.Command, r.URL)
			}
			if r.EntryPATH {
				return fmt.Sprintf("install %s, or add the directory that has %s to the entry's env.PATH (it replaces the host's PATH for this server)", what, r.Command)
			}
			return fmt.Sprintf("install %s, or add the directory that has %s to the host's PATH ('switchboard doctor' shows it; "+
				"a host started as a service or at login may not have your terminal's PATH)", what, r.Command)
		}
	}
	return "" // a kind this program does not know: the Message words it
}

// printSkip says why an import leaves an entry out: its problems one a
// line, each with its remedy, where they are why; else the reason.
func printSkip(w io.Writer, s config.Skip) {
	switch len(s.Problems) {
	case 0:
		fmt.Fprintln(w, "skipped:", s)
	case 1:
		fmt.Fprintf(w, "skipped: %q: not imported: %s\n", s.Name, problemLine(s.Problems[0]))
	default:
		fmt.Fprintf(w, "skipped: %q: not imported: %d problems:\n", s.Name, len(s.Problems))
		for _, p := range s.Problems {
			fmt.Fprintln(w, "  "+problemLine(p))
		}
	}
}
