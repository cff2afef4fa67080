package model_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHooksAreForTestsOnly: no file of the program but testhooks.go names
// what testhooks.go declares (a world's insides, the debug switches that
// break a reduction), so that only tests can reach them and every search
// runs with debug's zero value.
func TestHooksAreForTestsOnly(t *testing.T) {
	fset := token.NewFileSet()
	hooks, err := parser.ParseFile(fset, "testhooks.go", nil, 0)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, d := range hooks.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != "String" { // fmt.Stringer's, of BrokenSymmetry
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	require.Contains(t, names, "BreakSymmetryForTest", "the hooks were not read")

	root := ".."
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == filepath.Join("..", "model", "testhooks.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch n := n.(type) {
			case *ast.SelectorExpr:
				name = n.Sel.Name
			case *ast.Ident:
				if filepath.Dir(path) == filepath.Join("..", "model") {
					name = n.Name
				}
			}
			if names[name] {
				t.Errorf("%s names the test hook %s", fset.Position(n.Pos()), name)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, files, 50, "the program's files were not read")
}
