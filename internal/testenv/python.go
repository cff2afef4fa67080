package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// RequirePython is the environment variable that turns a missing Python
// from a skip into a failure: .ci/run sets it, so that CI never passes by
// skipping the tests that compare the model with CPython.
const RequirePython = "SWAPCHECK_REQUIRE_PYTHON"

const python3Missing = "python3 not found: install it (for example apt-get install -y python3)"

// Python3 returns the path of python3 on the PATH, or skips the test
// (fails it with SWAPCHECK_REQUIRE_PYTHON set).
func Python3(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		noPython(t, python3Missing)
	}
	return p
}

// Python311 returns the executable of a CPython 3.11 on the PATH
// (python3.11, or python3 when it is 3.11), resolved through any shim
// (pyenv's is a shell script that takes a few hundred milliseconds a
// start), or skips the test (fails it with SWAPCHECK_REQUIRE_PYTHON set):
// the replays and listings need the opcodes of 3.11.
func Python311(t testing.TB) string {
	t.Helper()
	py311.once.Do(func() {
		for _, name := range []string{"python3.11", "python3"} {
			p, err := exec.LookPath(name)
			if err != nil {
				continue
			}
			exe, version, ok := probe(p)
			if !ok {
				continue
			}
			if version != "3.11" {
				py311.why = fmt.Sprintf("%s is Python %s; this test needs 3.11 (install python3.11)", name, version)
				continue
			}
			py311.path = exe
			return
		}
		if py311.why == "" {
			py311.why = python3Missing
		}
	})
	if py311.path == "" {
		noPython(t, py311.why)
	}
	return py311.path
}

var py311 struct {
	once      sync.Once
	path, why string
}

// RunPython runs python3 with args and returns its stdout; the test fails
// with its stderr if it exits non-zero.
func RunPython(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(Python3(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func noPython(t testing.TB, why string) {
	t.Helper()
	Unavailable(t, RequirePython, why)
}

// Unavailable ends a test that needs a tool this machine lacks: it skips
// with why, or fails with why when the environment variable require is
// set (CI sets SWAPCHECK_REQUIRE_PYTHON, SWAPCHECK_REQUIRE_NUMBA and
// SWAPCHECK_REQUIRE_BROWSER, so that it never passes by skipping).
func Unavailable(t testing.TB, require, why string) {
	t.Helper()
	if os.Getenv(require) != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// PythonVersion returns the executable of a CPython of feature version v
// ("3.12"): python<v> on the PATH, else pyenv's newest v.N (under
// PYENV_ROOT or ~/.pyenv; a pyenv shim for a version that is not
// selected is never run), or skips the test (fails it with
// SWAPCHECK_REQUIRE_PYTHON set).
func PythonVersion(t testing.TB, v string) string {
	t.Helper()
	pyVersions.Lock()
	defer pyVersions.Unlock()
	if p, ok := pyVersions.found[v]; ok {
		if p == "" {
			noPython(t, "no CPython "+v+" on the PATH (python"+v+") or under pyenv: install it to run this test")
		}
		return p
	}
	if pyVersions.found == nil {
		pyVersions.found = map[string]string{}
	}
	var candidates []string
	if p, err := exec.LookPath("python" + v); err == nil {
		candidates = append(candidates, p)
	}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "versions", v+".*"))
	slices.Reverse(dirs) // newest patch release first, as far as names sort
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, "bin", "python3"))
	}
	for _, p := range candidates {
		if exe, version, ok := probe(p); ok && version == v {
			pyVersions.found[v] = exe
			return exe
		}
	}
	pyVersions.found[v] = ""
	noPython(t, "no CPython "+v+" on the PATH (python"+v+") or under pyenv: install it to run this test")
	return ""
}

var pyVersions struct {
	sync.Mutex
	found map[string]string
}

// probe runs the interpreter p and returns its sys.executable (p resolved
// through any shim) and feature version ("3.11"); ok is false when p does
// not run as a Python.
func probe(p string) (exe, version string, ok bool) {
	out, err := exec.Command(p, "-c", "import sys; print(sys.executable, '%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		return "", "", false
	}
	return strings.Cut(strings.TrimSpace(string(out)), " ")
}
