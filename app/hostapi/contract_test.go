package hostapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestMethodsListsEveryDescriptor: every Method declared in this package
// is in Methods() once, under the Go name its wire name gives
// ("servers.start" is MethodServersStart), and no two share a name. A
// descriptor left out of the list would have no contract test (app/host's
// checks a handler and a client method for each listed one).
func TestMethodsListsEveryDescriptor(t *testing.T) {
	declared := map[string]string{} // wire name -> Go name
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.CompositeLit)
					if !ok {
						continue
					}
					il, ok := lit.Type.(*ast.IndexListExpr)
					if !ok || len(lit.Elts) != 1 {
						continue
					}
					if id, ok := il.X.(*ast.Ident); !ok || id.Name != "Method" {
						continue
					}
					bl, ok := lit.Elts[0].(*ast.BasicLit)
					if !ok {
						t.Errorf("%s: the descriptor %s's name is not a string literal", f, vs.Names[i].Name)
						continue
					}
					name, _ := strconv.Unquote(bl.Value)
					if prev, dup := declared[name]; dup {
						t.Errorf("%s and %s both name the method %q", prev, vs.Names[i].Name, name)
					}
					declared[name] = vs.Names[i].Name
				}
			}
		}
	}
	if len(declared) < 30 {
		t.Fatalf("found %d descriptors in the package's files, want the API's 35 or so: is the parse wrong?", len(declared))
	}
	wire := regexp.MustCompile(`^([a-z]+)\.([a-z][a-zA-Z]*)$`)
	var listed []string
	for _, d := range hostapi.Methods() {
		listed = append(listed, d.MethodName())
	}
	for name, goName := range declared {
		if !slices.Contains(listed, name) {
			t.Errorf("%s (%q) is not in hostapi.Methods(): add it to the list", goName, name)
		}
		m := wire.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s: the name %q is not area.method", goName, name)
			continue
		}
		if want := "Method" + strings.ToUpper(m[1][:1]) + m[1][1:] + strings.ToUpper(m[2][:1]) + m[2][1:]; goName != want {
			t.Errorf("the descriptor of %q is %s: name it %s", name, goName, want)
		}
	}
	for i, name := range listed {
		if _, ok := declared[name]; !ok {
			t.Errorf("hostapi.Methods() lists %q, which no descriptor declares", name)
		}
		if slices.Index(listed, name) != i {
			t.Errorf("hostapi.Methods() lists %q twice", name)
		}
	}
}
