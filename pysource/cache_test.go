package pysource_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/pyfind"
	"swapcheck/pysource"
	"swapcheck/pyvm"
)

// twoPythons are two supported CPythons of different feature versions,
// run as their own executables, or the test is skipped.
func twoPythons(t *testing.T) (a, b pysource.Interpreter) {
	t.Helper()
	byVersion := map[pyvm.Version]pysource.Interpreter{}
	var vs []pyvm.Version
	for _, in := range pyfind.Interpreters() {
		if _, ok := byVersion[in.Version]; !ok && in.Supported() && !in.FreeThreaded {
			byVersion[in.Version] = in
			vs = append(vs, in.Version)
		}
	}
	if len(vs) < 2 {
		t.Skipf("two supported CPythons of different versions are needed; found %v", vs)
	}
	return byVersion[vs[0]], byVersion[vs[1]]
}

// wrapper writes dir/python3, a script that counts its runs in dir/runs
// and runs the interpreter whose path dir/choice holds: a stand-in for a
// pyenv shim, whose choice the probe cache cannot see.
func wrapper(t *testing.T, dir string, choice pysource.Interpreter) string {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho run >> %q\nread -r p < %q\nexec \"$p\" \"$@\"\n", filepath.Join(dir, "runs"), filepath.Join(dir, "choice"))
	path := filepath.Join(dir, "python3")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	choose(t, dir, choice)
	return path
}

func choose(t *testing.T, dir string, in pysource.Interpreter) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "choice"), []byte(in.Path+"\n"), 0o644))
}

func runs(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "run\n")
}

// A second search for interpreters takes the kept answers and runs
// nothing; a run that failed is kept too; without a cache file every
// search runs every candidate.
func TestProbeCacheKeepsAnswers(t *testing.T) {
	a, _ := twoPythons(t)
	dir := t.TempDir()
	wrapper(t, dir, a)
	failing := filepath.Join(dir, "python3.12")
	require.NoError(t, os.WriteFile(failing, []byte("#!/bin/sh\necho run >> "+filepath.Join(dir, "runs")+"\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n"), 0o755))
	env := pysource.Env{Path: dir, Home: t.TempDir(), Cache: filepath.Join(t.TempDir(), "probes.json")}

	first, err := pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, a.Release(), first.Release())
	require.Equal(t, 2, runs(t, dir), "the first search runs both candidates")

	again, err := pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, first, again)
	require.Equal(t, 2, runs(t, dir), "the second search runs nothing")

	// what a candidate answered is kept under what it resolves to: a
	// new script runs again
	require.NoError(t, os.WriteFile(failing, []byte("#!/bin/sh\necho run >> "+filepath.Join(dir, "runs")+"\nexit 3\n"), 0o755))
	_, err = pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, 3, runs(t, dir))

	noCache := env
	noCache.Cache = ""
	_, err = pysource.FindIn(noCache, "")
	require.NoError(t, err)
	require.Equal(t, 5, runs(t, dir))

	// a cache file that is not one is no cache, and is replaced
	require.NoError(t, os.WriteFile(env.Cache, []byte("not json"), 0o644))
	_, err = pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, 7, runs(t, dir))
	_, err = pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, 7, runs(t, dir))
}

// A script's answer depends on its environment and on the version files
// pyenv and asdf read: a change to either runs it again.
func TestProbeCacheSeesTheEnvironmentAndVersionFiles(t *testing.T) {
	a, _ := twoPythons(t)
	dir := t.TempDir()
	wrapper(t, dir, a)
	env := pysource.Env{Path: dir, Home: t.TempDir(), Cache: filepath.Join(t.TempDir(), "probes.json")}
	work := t.TempDir()
	t.Chdir(work)
	find := func() {
		t.Helper()
		_, err := pysource.FindIn(env, "")
		require.NoError(t, err)
	}
	find()
	require.Equal(t, 1, runs(t, dir))
	find()
	require.Equal(t, 1, runs(t, dir))

	t.Setenv("PYENV_VERSION", "3.12.1")
	find()
	require.Equal(t, 2, runs(t, dir), "a new PYENV_VERSION")

	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(work), ".python-version"), []byte("3.11.7\n"), 0o644))
	find()
	require.Equal(t, 3, runs(t, dir), "a .python-version above the working directory")

	sub := filepath.Join(work, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Chdir(sub)
	find()
	require.Equal(t, 4, runs(t, dir), "another working directory")

	require.NoError(t, os.WriteFile(filepath.Join(sub, ".tool-versions"), []byte("python 3.12.1\n"), 0o644))
	find()
	require.Equal(t, 5, runs(t, dir), "asdf's .tool-versions")
	find()
	require.Equal(t, 5, runs(t, dir))
}

// Where a script now runs another Python than its kept answer says, in a
// way its fingerprint cannot see, the load catches it: Open runs every
// candidate again and loads with what they answer now; Load alone says
// so in one line.
func TestOpenRunsAgainWhereTheCacheIsStale(t *testing.T) {
	a, b := twoPythons(t)
	dir := t.TempDir()
	wrapper(t, dir, a)
	env := pysource.Env{Path: dir, Home: t.TempDir(), Cache: filepath.Join(t.TempDir(), "probes.json")}
	file := write(t, "k.py", "from contextlib import contextmanager\n\n@contextmanager\ndef swapped_cuda_module(fn, fake):\n    yield\n")

	src, err := pysource.OpenIn(env, "", file)
	require.NoError(t, err)
	require.Equal(t, a.Version, src.Interpreter.Version)

	choose(t, dir, b)
	kept, err := pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, a.Version, kept.Version, "the kept answer, stale")
	_, err = pysource.LoadIn(env, kept, file)
	msg := oneLine(t, err)
	var stale *pysource.StaleInterpreterError
	require.True(t, errors.As(err, &stale), "%T: %s", err, msg)
	require.Contains(t, msg, b.Release())

	src, err = pysource.OpenIn(env, "", file)
	require.NoError(t, err)
	require.Equal(t, b.Version, src.Interpreter.Version)
	require.Equal(t, filepath.Join(dir, "python3"), src.Interpreter.Path)
	now, err := pysource.FindIn(env, "")
	require.NoError(t, err)
	require.Equal(t, b.Version, now.Version, "the cache holds the new answer")
}

// A wrapper's answer is kept under its environment too: a script, or a
// program not named python* that a python3 on PATH links to (mise's
// shims); an interpreter's under its file alone.
func TestFingerprintOfWrappers(t *testing.T) {
	dir := t.TempDir()
	env := pysource.Env{Path: dir, Home: t.TempDir()}
	link := func(name, target string, content []byte) string {
		t.Helper()
		real := filepath.Join(dir, target)
		require.NoError(t, os.WriteFile(real, content, 0o755))
		l := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.Symlink(real, l))
		return l
	}
	binary := []byte("\x7fELF not really")
	for _, c := range []struct {
		path    string
		wrapper bool
	}{
		{link("python3", "python3.12", binary), false},
		{link("python3", "mise", binary), true},
		{link("python3", "python3.11", []byte("#!/bin/sh\nexit 0\n")), true},
	} {
		k1, _ := pysource.Fingerprint(env, c.path)
		require.NotEmpty(t, k1)
		t.Setenv("SWAPCHECK_TEST_SELECT", c.path)
		k2, real := pysource.Fingerprint(env, c.path)
		require.NotEmpty(t, real)
		require.Equal(t, c.wrapper, k1 != k2, "%s -> %s", c.path, real)
	}
}

// `pyenv root` (asked where PYENV_ROOT is unset) is a bash script too:
// its answer is kept under pyenv's file and the home directory.
func TestProbeCacheKeepsPyenvRoot(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\necho run >> %q\necho %q\n", filepath.Join(dir, "runs"), root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pyenv"), []byte(script), 0o755))
	env := pysource.Env{Path: dir, Home: t.TempDir(), Cache: filepath.Join(t.TempDir(), "probes.json")}
	_, where := pysource.Candidates(env)
	require.Contains(t, where, root)
	require.Equal(t, 1, runs(t, dir))
	_, where = pysource.Candidates(env)
	require.Contains(t, where, root)
	require.Equal(t, 1, runs(t, dir), "the kept answer")

	env.Home = t.TempDir()
	_, where = pysource.Candidates(env)
	require.Contains(t, where, root)
	require.Equal(t, 2, runs(t, dir), "another home")
}
