package pysource

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"swapcheck/pyvm"
)

// dumpPy is the helper the interpreter runs (python -I -S -c dumpPy FILE);
// without FILE it prints the interpreter's facts only (the probe).
//
//go:embed dump.py
var dumpPy string

// Interpreter is a CPython found on the machine and verified by running it.
type Interpreter struct {
	Path           string       // what is run (as found: a pyenv shim stays a shim)
	Executable     string       // sys.executable, as the interpreter reports it
	Version        pyvm.Version // the feature version (3.12)
	Micro          int          // the bug-fix release (1 in 3.12.1)
	Implementation string       // sys.implementation.name ("cpython")
	FreeThreaded   bool         // Py_GIL_DISABLED: a free-threaded build (3.13t)
	Via            string       // where it was found: "PATH", "pyenv" or "given"
}

func (i Interpreter) String() string {
	name := "CPython"
	if i.Implementation != "cpython" {
		name = i.Implementation
	}
	ft := ""
	if i.FreeThreaded {
		ft = " (free-threaded)"
	}
	return fmt.Sprintf("%s %s%s at %s", name, i.Release(), ft, i.Path)
}

// Release is the interpreter's release, its feature version and bug-fix
// release: "3.12.1".
func (i Interpreter) Release() string { return fmt.Sprintf("%s.%d", i.Version, i.Micro) }

// Supported reports whether the interpreter is a CPython whose bytecode
// the interpreter runs.
func (i Interpreter) Supported() bool { return i.Implementation == "cpython" && i.Version.Supported() }

// Env is what Find reads of the process's environment.
type Env struct {
	Path      string // $PATH
	PyenvRoot string // $PYENV_ROOT
	Home      string // $HOME
	// Cache is the file that keeps what each candidate answered (cache.go);
	// "": every candidate is run.
	Cache string
	// refresh: run every candidate, and keep what it answers now (Open,
	// after a kept answer turned out stale)
	refresh bool
}

// OSEnv is the process's own environment, with the probe cache in the
// user's cache directory ($XDG_CACHE_HOME or ~/.cache on Linux:
// swapcheck/python-probes.json), where there is one.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	env := Env{Path: os.Getenv("PATH"), PyenvRoot: os.Getenv("PYENV_ROOT"), Home: home}
	if dir, err := os.UserCacheDir(); err == nil {
		env.Cache = filepath.Join(dir, "swapcheck", "python-probes.json")
	}
	return env
}

// pathNames are the commands looked for on PATH, in order.
var pathNames = []string{"python3", "python3.13", "python3.12", "python3.11"}

// probeTimeout bounds one run of a candidate; probeParallel is how many
// run at once.
const (
	probeTimeout  = 30 * time.Second
	probeParallel = 4
)

// Find returns the interpreter spec names, in the process's environment.
func Find(spec string) (Interpreter, error) { return FindIn(OSEnv(), spec) }

// FindIn returns the interpreter spec names: "" the newest supported one
// found (on PATH first, then under pyenv; the first found wins a tie), a
// version ("3.12") the first found of that version, anything else a path
// or a command name on PATH, which must be a supported CPython.
func FindIn(env Env, spec string) (Interpreter, error) {
	if spec != "" {
		if v, err := pyvm.ParseVersion(spec); err == nil {
			found, where := Candidates(env)
			for _, c := range found {
				if c.Version == v && c.Implementation == "cpython" {
					if !c.Supported() {
						return Interpreter{}, &UnsupportedVersionError{Interp: c}
					}
					return c, nil
				}
			}
			return Interpreter{}, &NoPythonError{Want: spec, Found: found, Where: where}
		}
		path := spec
		if !strings.ContainsRune(spec, '/') {
			p, ok := lookPath(env.Path, spec)
			if !ok {
				return Interpreter{}, &NotPythonError{Path: spec, Reason: "not found on PATH"}
			}
			path = p
		}
		cache := openCache(env.Cache)
		c, err := probeKept(env, cache, path)
		cache.save()
		if err != nil {
			return Interpreter{}, err
		}
		c.Via = "given"
		if !c.Supported() {
			return Interpreter{}, &UnsupportedVersionError{Interp: c}
		}
		return c, nil
	}
	found, where := Candidates(env)
	var best *Interpreter
	for i := range found {
		c := &found[i]
		if !c.Supported() {
			continue
		}
		if best == nil || best.Version.Less(c.Version) || best.Version == c.Version && best.Micro < c.Micro {
			best = c
		}
	}
	if best == nil {
		return Interpreter{}, &NoPythonError{Found: found, Where: where}
	}
	return *best, nil
}

// Candidates are the interpreters found, each verified by running it,
// in search order (PATH's commands, then pyenv's versions), one per
// executable; where says where the search looked.
func Candidates(env Env) (found []Interpreter, where string) {
	type cand struct{ path, via string }
	var cands []cand
	for _, name := range pathNames {
		for _, p := range lookPathAll(env.Path, name) {
			cands = append(cands, cand{p, "PATH"})
		}
	}
	cache := openCache(env.Cache)
	defer cache.save()
	root := pyenvRoot(env, cache)
	if root != "" {
		dirs, _ := filepath.Glob(filepath.Join(root, "versions", "*", "bin", "python3"))
		sort.Strings(dirs)
		for _, p := range dirs {
			cands = append(cands, cand{p, "pyenv"})
		}
	}
	where = "PATH (" + strings.Join(pathNames, ", ") + ")"
	if root != "" {
		where += " and " + filepath.Join(root, "versions", "*", "bin", "python3")
	}
	seen := map[string]bool{}
	var paths []cand
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c.path)
		if err != nil || seen["path:"+real] {
			continue
		}
		seen["path:"+real] = true
		paths = append(paths, c)
	}
	// probe concurrently (a pyenv shim takes a second to fail), keeping
	// the search order in the results; the cache answers for most
	probed := make([]Interpreter, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, probeParallel)
	for i, c := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			probed[i], errs[i] = probeKept(env, cache, c.path)
		}()
	}
	wg.Wait()
	for i, c := range paths {
		in, err := probed[i], errs[i]
		if err != nil {
			continue // a shim of a version not selected, a broken link: not an interpreter
		}
		exe := in.Executable
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		key := fmt.Sprintf("exe:%s:%s.%d:%v", exe, in.Version, in.Micro, in.FreeThreaded)
		if seen[key] {
			continue
		}
		seen[key] = true
		in.Via = c.via
		found = append(found, in)
	}
	return found, where
}

// pyenvRoot is $PYENV_ROOT, else what `pyenv root` says (when pyenv is on
// PATH; kept in the cache, as a candidate's answer is), else ~/.pyenv if
// it exists.
func pyenvRoot(env Env, cache *probeCache) string {
	if env.PyenvRoot != "" {
		return env.PyenvRoot
	}
	if p, ok := lookPath(env.Path, "pyenv"); ok {
		key, real := "", ""
		if cache != nil {
			key, real = rootKey(env, p)
		}
		if e, ok := cache.lookup(key); ok && !env.refresh && e.Root != "" {
			return e.Root
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, p, "root")
		cmd.Env = childEnv(env)
		if out, err := cmd.Output(); err == nil {
			if r := strings.TrimSpace(string(out)); r != "" {
				cache.store(key, probeEntry{Path: p, Real: real, Root: r})
				return r
			}
		}
	}
	if env.Home != "" {
		d := filepath.Join(env.Home, ".pyenv")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// Probe runs path and reads what it is. A program that fails, answers
// anything but the helper's JSON, or is not found, is an error.
func Probe(env Env, path string) (Interpreter, error) {
	out, err := runHelper(env, path)
	if err != nil {
		he, _ := err.(*helperFailure)
		return Interpreter{}, &NotPythonError{Path: path, Reason: err.Error(), transient: he != nil && he.timedOut}
	}
	var d struct {
		Interpreter interpJSON `json:"interpreter"`
	}
	if err := json.Unmarshal(out, &d); err != nil || len(d.Interpreter.Version) != 3 {
		return Interpreter{}, &NotPythonError{Path: path, Reason: "it did not answer as the helper does"}
	}
	return d.Interpreter.interp(path), nil
}

type interpJSON struct {
	Version        []int  `json:"version"`
	Implementation string `json:"implementation"`
	GILDisabled    bool   `json:"gil_disabled"`
	Executable     string `json:"executable"`
}

// json is what the helper answered for i.
func (i Interpreter) json() interpJSON {
	return interpJSON{
		Version:        []int{i.Version.Major, i.Version.Minor, i.Micro},
		Implementation: i.Implementation, GILDisabled: i.FreeThreaded, Executable: i.Executable,
	}
}

func (j interpJSON) interp(path string) Interpreter {
	return Interpreter{
		Path: path, Executable: j.Executable,
		Version: pyvm.Version{Major: j.Version[0], Minor: j.Version[1]}, Micro: j.Version[2],
		Implementation: j.Implementation, FreeThreaded: j.GILDisabled,
	}
}

// runHelper runs the helper with path, its args after it; stdout is the
// answer, a failure's last line of stderr the error.
func runHelper(env Env, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"-I", "-S", "-c", dumpPy}, args...)...)
	cmd.Env = childEnv(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := lastLine(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg = fmt.Sprintf("exit %d: %s", ee.ExitCode(), msg)
		}
		return nil, &helperFailure{msg: msg, timedOut: ctx.Err() != nil}
	}
	return stdout.Bytes(), nil
}

// helperFailure is a run of the helper that failed; timedOut: it was
// stopped after probeTimeout.
type helperFailure struct {
	msg      string
	timedOut bool
}

func (e *helperFailure) Error() string { return e.msg }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return oneLine(lines[len(lines)-1])
}

// childEnv is the process environment with env's PATH.
func childEnv(env Env) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "PYENV_ROOT=") {
			out = append(out, kv)
		}
	}
	out = append(out, "PATH="+env.Path)
	if env.PyenvRoot != "" {
		out = append(out, "PYENV_ROOT="+env.PyenvRoot)
	}
	return out
}

// lookPath finds name on path (the first executable file).
func lookPath(path, name string) (string, bool) {
	all := lookPathAll(path, name)
	if len(all) == 0 {
		return "", false
	}
	return all[0], true
}

// lookPathAll finds every executable file called name on path, in order.
func lookPathAll(path, name string) []string {
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
}
