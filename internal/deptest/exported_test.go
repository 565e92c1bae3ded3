package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// interfaceMethods are methods that a package of the standard library
// calls through an interface (fmt, encoding/json, net/http, io, sort,
// errors, flag, slog): they have no caller in the module's text.
var interfaceMethods = map[string]bool{
	"String": true, "GoString": true, "Format": true, "Error": true, "Unwrap": true, "Is": true, "As": true, "Timeout": true, "Temporary": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true, "LogValue": true,
	"ServeHTTP": true, "RoundTrip": true, "Read": true, "Write": true, "Close": true, "WriteString": true, "ReadFrom": true, "WriteTo": true,
	"Len": true, "Less": true, "Swap": true, "Set": true, "Get": true, "IsBoolFlag": true,
	"Token":     true,                                                       // oauth2.TokenSource
	"SessionID": true,                                                       // the MCP SDK's Connection
	"Enabled":   true, "Handle": true, "WithAttrs": true, "WithGroup": true, // slog.Handler
	// fyne: a widget's and a layout's methods, called by the toolkit.
	"CreateRenderer": true, "Layout": true, "MinSize": true, "Refresh": true, "Destroy": true, "Objects": true,
	"Tapped": true, "TappedSecondary": true, "MouseIn": true, "MouseOut": true, "MouseMoved": true, "Cursor": true,
	"FocusGained": true, "FocusLost": true, "TypedRune": true, "TypedKey": true, "Dragged": true, "DragEnd": true,
	"Resize": true, "Move": true, "Show": true, "Hide": true, "Visible": true, "Position": true, "Size": true,
	"Name": true, "Content": true, "Color": true, "Font": true, "Icon": true,
}

// calledByName are methods that something outside the module calls by
// their name, through reflection.
var calledByName = map[string]string{
	"testkit.Notifications.GetCapabilities":      "D-Bus (godbus's Export)",
	"testkit.Notifications.GetServerInformation": "D-Bus (godbus's Export)",
	"testkit.Notifications.CloseNotification":    "D-Bus (godbus's Export)",
}

// decl is an exported function, or an exported method of an exported
// type, of a non-test file.
type decl struct {
	dir, pkg, name, recv string
	pos                  token.Position
}

// qualified is pkg.Func or pkg.Type.Method.
func (d decl) qualified() string {
	if d.recv != "" {
		return d.pkg + "." + d.recv + "." + d.name
	}
	return d.pkg + "." + d.name
}

func (d decl) String() string { return d.pos.String() + ": " + d.qualified() }

// TestExportedHaveCallers: every exported function, and every exported
// method of an exported type, is used outside its own package's tests: by
// a non-test file anywhere in the module, or by the tests of another
// package (testkit's helpers, a fake another package's tests use). One
// used only by its own package's tests is unexported (or moved into the
// test); one used nowhere is removed. The check reads names, not types:
// a use of the same name elsewhere hides an unused one, never the other
// way, so it cannot fail wrongly; methods the standard library or the
// toolkit call through an interface are not checked.
func TestExportedHaveCallers(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	type file struct {
		dir  string
		test bool
		f    *ast.File
	}
	var files []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, file{dir: filepath.Dir(path), test: strings.HasSuffix(path, "_test.go"), f: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files under %s: not the module", len(files), root)
	}

	var decls []decl
	for _, f := range files {
		if f.test || f.f.Name.Name == "main" {
			continue
		}
		for _, d := range f.f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			dc := decl{dir: f.dir, pkg: f.f.Name.Name, name: fd.Name.Name, pos: fset.Position(fd.Pos())}
			if fd.Recv != nil {
				dc.recv = recvName(fd.Recv.List[0].Type)
				if !ast.IsExported(dc.recv) || interfaceMethods[dc.name] {
					continue
				}
			}
			if _, ok := calledByName[dc.qualified()]; ok {
				continue
			}
			decls = append(decls, dc)
		}
	}

	used := map[string][]use{}
	for _, f := range files {
		ast.Inspect(f.f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				// The declaration's own name is not a use; its body is.
				if n.Body != nil {
					ast.Inspect(n.Body, func(m ast.Node) bool {
						record(m, f.dir, f.test, used)
						return true
					})
				}
				if n.Type != nil {
					ast.Inspect(n.Type, func(m ast.Node) bool { record(m, f.dir, f.test, used); return true })
				}
				return false
			}
			record(n, f.dir, f.test, used)
			return true
		})
	}
	var unused []string
	for _, d := range decls {
		ok := slices.ContainsFunc(used[d.name], func(u use) bool {
			return !u.test || u.dir != d.dir
		})
		if !ok {
			unused = append(unused, d.String())
		}
	}
	slices.Sort(unused)
	for _, u := range unused {
		t.Errorf("%s: exported, but used by no other package and no non-test file: unexport it (or move it into the test that uses it), or remove it", u)
	}
}

// use is where a name is used: a directory, and whether in a test file.
type use struct {
	dir  string
	test bool
}

// record notes the name n uses, if any: x.name (a method, or a function
// of another package) or name (a function of the same package).
func record(n ast.Node, dir string, test bool, used map[string][]use) {
	var name string
	switch n := n.(type) {
	case *ast.SelectorExpr:
		name = n.Sel.Name
	case *ast.Ident:
		name = n.Name
	default:
		return
	}
	if ast.IsExported(name) {
		used[name] = append(used[name], use{dir, test})
	}
}

// recvName is the name of a method's receiver type.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Skipf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
