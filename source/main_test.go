package source_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/pyfind"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/source"
)

// interpreter returns the CPython of version v, or skips the test (fails
// it under SWAPCHECK_REQUIRE_PYTHON=1) with a message.
func interpreter(t testing.TB, v pyvm.Version) pysource.Interpreter {
	t.Helper()
	for _, in := range pyfind.Interpreters() {
		if in.Version == v && in.Implementation == "cpython" && !in.FreeThreaded {
			return in
		}
	}
	msg := fmt.Sprintf("no CPython %s found on PATH or under pyenv: install it to run this test", v)
	if os.Getenv("SWAPCHECK_REQUIRE_PYTHON") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return pysource.Interpreter{}
}

// sourceOf compiles spec on CPython v.
func sourceOf(t testing.TB, v pyvm.Version, spec string) *pysource.Source {
	t.Helper()
	src, err := pysource.Load(interpreter(t, v), spec)
	require.NoError(t, err)
	return src
}

// load loads spec on CPython v into shape's scenario under atomicity a.
func load(t testing.TB, v pyvm.Version, spec string, shape scenario.Shape, a model.Atomicity) *source.Program {
	t.Helper()
	return loadWith(t, v, spec, shape, a, source.Options{})
}

// loadWith is load with options.
func loadWith(t testing.TB, v pyvm.Version, spec string, shape scenario.Shape, a model.Atomicity, o source.Options) *source.Program {
	t.Helper()
	src := sourceOf(t, v, spec)
	sc, err := shape.Build()
	require.NoError(t, err)
	p, err := source.LoadWith(src, sc, a, o)
	require.NoError(t, err)
	return p
}
