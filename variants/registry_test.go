package variants_test

// A variant is three pieces: its listing (an exported *model.Protocol in
// package naive or swap), its Python file under testdata/python, and its
// line in the registry. Each test here fails, naming what is missing,
// when one piece comes without the others (see docs/contributing.md).

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/variants"
)

const pythonDir = "../testdata/python"

// listingPackages are the packages whose exported *model.Protocol
// variables are the variants.
var listingPackages = []string{"naive", "swap"}

func TestEveryVariantHasItsPythonFile(t *testing.T) {
	for _, p := range variants.Protocols() {
		require.NotEmpty(t, p.Source, "%s names no Python file (model.Protocol.Source)", p.Name)
		path := filepath.Join(pythonDir, p.Source)
		_, err := os.Stat(path)
		require.NoError(t, err, "%s is registered, but its Python file %s is missing", p.Name, path)
	}
}

func TestEveryPythonFileIsRegistered(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(pythonDir, "*.py"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sources := map[string]string{}
	for _, p := range variants.Protocols() {
		sources[p.Source] = p.Name
	}
	for _, f := range files {
		_, ok := sources[filepath.Base(f)]
		require.True(t, ok, "%s is the Python file of no registered variant: register its listing in variants/variants.go (or remove the file)", f)
	}
}

func TestRegistryNamesAreDistinct(t *testing.T) {
	names, sources := map[string]bool{}, map[string]bool{}
	for _, v := range variants.All() {
		p := v.Protocol
		require.NotNil(t, p)
		require.NotEmpty(t, p.Name)
		require.False(t, names[p.Name], "%s is registered twice", p.Name)
		require.False(t, sources[p.Source], "%s's Python file %s is another variant's", p.Name, p.Source)
		require.NotEmpty(t, p.Summary, "%s has no summary (-list shows it)", p.Name)
		require.Contains(t, []variants.Expected{variants.Correct, variants.Buggy}, v.Expected, "%s: say whether it is expected correct", p.Name)
		names[p.Name], sources[p.Source] = true, true
	}
}

// TestEveryExportedProtocolIsRegistered type-checks the listing packages
// from source, finds their exported package-level variables of type
// *model.Protocol, and requires each to appear (as pkg.Name) in the
// registry's source, and nothing else from those packages to appear there.
func TestEveryExportedProtocolIsRegistered(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	var exported []string
	for _, dir := range listingPackages {
		pkg, err := imp.Import("swapcheck/" + dir)
		require.NoError(t, err, "type-checking %s", dir)
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			v, ok := scope.Lookup(name).(*types.Var)
			if !ok || !v.Exported() {
				continue
			}
			if types.TypeString(v.Type(), nil) == "*swapcheck/model.Protocol" {
				exported = append(exported, dir+"."+name)
			}
		}
	}
	require.NotEmpty(t, exported)

	registered := registryEntries(t, fset, "variants.go")
	for _, e := range exported {
		require.Contains(t, registered, e, "%s is an exported *model.Protocol that is not registered: add {%s, Correct or Buggy} to the registry in variants/variants.go", e, e)
	}
	for _, r := range registered {
		require.Contains(t, exported, r, "the registry names %s, which is not an exported *model.Protocol of %s", r, strings.Join(listingPackages, " or "))
	}
	require.Len(t, variants.All(), len(registered), "every registry line names one listing")
}

// registryEntries are the selectors pkg.Name, pkg one of listingPackages,
// in the composite literals of file (the registry's source).
func registryEntries(t *testing.T, fset *token.FileSet, file string) []string {
	f, err := parser.ParseFile(fset, file, nil, 0)
	require.NoError(t, err)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			if sel, ok := e.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(listingPackages, x.Name) {
					out = append(out, x.Name+"."+sel.Sel.Name)
				}
			}
		}
		return true
	})
	return out
}
