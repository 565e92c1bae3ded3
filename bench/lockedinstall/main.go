// Command lockedinstall measures a locked npm install of an MCP server
// (app/install, as 'registry add' runs it) followed by its first start
// to the answer to initialize, against a cold `npx -y PACKAGE@VERSION`
// start to the same answer, each with an empty npm cache of its own.
// It prints both times and their ratio (docs/performance.md).
//
//	go run ./bench/lockedinstall [-pkg NAME] [-version V] [-bin B] [-runs N]
//
// The version defaults to the one engine/stdio/testdata/npm pins. It
// needs node, npm and npx, and the npm registry.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/switchboard-mcp/switchboard/app/install"
)

func main() {
	pkg := flag.String("pkg", "@modelcontextprotocol/server-everything", "the npm package")
	version := flag.String("version", "", "its exact version (default: engine/stdio/testdata/npm's)")
	runs := flag.Int("runs", 1, "runs of each")
	flag.Parse()
	if *version == "" {
		var pj struct{ Dependencies map[string]string }
		b, err := os.ReadFile("engine/stdio/testdata/npm/package.json")
		if err == nil {
			err = json.Unmarshal(b, &pj)
		}
		if err != nil || pj.Dependencies[*pkg] == "" {
			fail("no -version given and none in engine/stdio/testdata/npm/package.json (run from the repository's root): %v", err)
		}
		*version = pj.Dependencies[*pkg]
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		fail("npm: %v", err)
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		fail("npx: %v", err)
	}
	var locked, lockedInstall, lockedStart, cold []time.Duration
	for i := range *runs {
		tmp, err := os.MkdirTemp("", "lockedinstall")
		if err != nil {
			fail("%v", err)
		}
		env := append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "cache-locked"), "npm_config_update_notifier=false")
		t0 := time.Now()
		l, err := install.InstallNPM(context.Background(), filepath.Join(tmp, "state"), install.NPM{Path: npm, Env: env},
			install.Request{Server: "ev", Package: *pkg, Version: *version})
		if err != nil {
			fail("the locked install: %v", err)
		}
		t1 := time.Now()
		if err := initialize(exec.Command("node", l.Bin, "stdio"), env); err != nil {
			fail("node %s: %v", l.Bin, err)
		}
		t2 := time.Now()
		lockedInstall, lockedStart, locked = append(lockedInstall, t1.Sub(t0)), append(lockedStart, t2.Sub(t1)), append(locked, t2.Sub(t0))

		env = append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "cache-npx"), "npm_config_update_notifier=false")
		t0 = time.Now()
		if err := initialize(exec.Command(npx, "-y", *pkg+"@"+*version, "stdio"), env); err != nil {
			fail("npx: %v", err)
		}
		cold = append(cold, time.Since(t0))
		os.RemoveAll(tmp)
		fmt.Fprintf(os.Stderr, "run %d: locked %.2fs (install %.2fs + first start %.2fs), cold npx %.2fs\n", i+1,
			locked[i].Seconds(), lockedInstall[i].Seconds(), lockedStart[i].Seconds(), cold[i].Seconds())
		if i == 0 {
			fmt.Printf("%s@%s: %d packages locked\n", *pkg, *version, l.Packages)
		}
	}
	m, c := median(locked), median(cold)
	fmt.Printf("locked install + first start to initialize: %.2f s (install %.2f s, start %.2f s)\n", m.Seconds(), median(lockedInstall).Seconds(), median(lockedStart).Seconds())
	fmt.Printf("cold npx -y start to initialize (empty npm cache): %.2f s\n", c.Seconds())
	fmt.Printf("ratio locked/cold npx: %.2f (median of %d run(s))\n", m.Seconds()/c.Seconds(), *runs)
}

// initialize starts cmd and waits for its answer to initialize over
// stdio.
func initialize(cmd *exec.Cmd, env []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { <-ctx.Done(); cmd.Process.Kill() }()
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID == 1 && m.Result != nil {
			return nil
		}
	}
	return fmt.Errorf("no answer to initialize (%v)", sc.Err())
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "lockedinstall: "+format+"\n", a...)
	os.Exit(1)
}
