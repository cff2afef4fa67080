package pysource_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pysource"
	"swapcheck/pyvm"
)

// python is a supported CPython of this machine, or the test is skipped.
// The search (it runs every interpreter on PATH and under pyenv: seconds
// through pyenv's shims) runs once per test binary.
func python(t *testing.T) pysource.Interpreter {
	t.Helper()
	in, err := findOnce()
	if err != nil {
		t.Skipf("no supported CPython here: %v", err)
	}
	return in
}

var findOnce = sync.OnceValues(func() (pysource.Interpreter, error) { return pysource.Find("") })

// oneLine: every error the front-end gives is one line, for the CLI's
// "one clear line and exit 2".
func oneLine(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	msg := err.Error()
	require.NotContains(t, msg, "\n", "a multi-line error")
	return msg
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
	return f
}

func TestLoadRefusesBadInput(t *testing.T) {
	in := python(t)
	good := "from contextlib import contextmanager\n\n@contextmanager\ndef swapped_cuda_module(fn, fake):\n    yield\n"
	for _, c := range []struct {
		name, spec string
		as         any
		says       string
	}{
		{"no such file", filepath.Join(t.TempDir(), "missing.py"), new(*pysource.NoFileError), "missing.py"},
		{"a directory", t.TempDir(), new(*pysource.NoFileError), ""},
		{"syntax error", write(t, "bad.py", "def f(:\n    pass\n"), new(*pysource.SyntaxError), "bad.py:1"},
		{"no such function", write(t, "k.py", good) + ":nothere", new(*pysource.NoFunctionError), "nothere"},
		{"no swapped_cuda_module", write(t, "other.py", "def f():\n    pass\n"), new(*pysource.NoFunctionError), "swapped_cuda_module"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pysource.Load(in, c.spec)
			msg := oneLine(t, err)
			require.True(t, errors.As(err, c.as), "%T: %s", err, msg)
			require.Contains(t, msg, c.says)
		})
	}
	src, err := pysource.Load(in, write(t, "k.py", good))
	require.NoError(t, err)
	_, err = src.Program(pyvm.Options{})
	require.NoError(t, err)
}

func TestFindRefusesWhatIsNotPython(t *testing.T) {
	dir := t.TempDir()
	// a pyenv shim for a version that is not selected answers so
	shim := filepath.Join(dir, "python3")
	require.NoError(t, os.WriteFile(shim, []byte("#!/bin/sh\necho 'pyenv: python3: command not found' >&2\nexit 127\n"), 0o755))
	env := pysource.Env{Path: dir, Home: t.TempDir()}

	_, err := pysource.FindIn(env, "")
	msg := oneLine(t, err)
	var none *pysource.NoPythonError
	require.True(t, errors.As(err, &none), "%T: %s", err, msg)
	require.Contains(t, msg, "-python PATH")

	_, err = pysource.FindIn(env, shim)
	msg = oneLine(t, err)
	var notPy *pysource.NotPythonError
	require.True(t, errors.As(err, &notPy), "%T: %s", err, msg)

	_, err = pysource.FindIn(env, filepath.Join(dir, "nothing"))
	oneLine(t, err)
}

func TestFindRefusesAnUnsupportedVersion(t *testing.T) {
	in := python(t)
	_, err := pysource.FindIn(pysource.OSEnv(), "2.7")
	msg := oneLine(t, err)
	require.True(t, strings.Contains(msg, "2.7"), msg)
	// the interpreter found names its version in what it says
	require.Contains(t, in.String(), in.Version.String())
}
