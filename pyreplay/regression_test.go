package pyreplay_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
)

var emitTestTally = flag.String("pyreplay.emit-test-tally", "", "write TestEmittedTestOnNumba's tally as a Markdown table to this file")

// pytestINI is numba-cuda's filterwarnings = error (testing/pytest.ini),
// less two warnings Debian's numba 0.56.4 raises on its own import (its
// llvmlite's importlib.resources.path, its numpy.distutils), which are
// not the test's.
const pytestINI = `[pytest]
filterwarnings =
    error
    ignore:path is deprecated. Use files\(\) instead:DeprecationWarning:llvmlite
    ignore:\s*` + "`numpy.distutils`" + ` is deprecated:DeprecationWarning
`

// userError is the error a user of naive's simulator sees.
const userError = "AttributeError: tid=[1, 0, 0] ctaid=[0, 0, 0]: module 'numba.cuda' has no attribute 'local'"

// emittedTest writes the regression test of naive's default
// counterexample (and pytest.ini) into a new directory, and returns it.
func emittedTest(t *testing.T) string {
	t.Helper()
	rep := explore(t, "naive", shape(2))
	files, err := pyreplay.EmitTest(rep, "test_swap_race.py")
	require.NoError(t, err)
	dir := t.TempDir()
	for _, f := range []pyreplay.File{files.Test, files.Support, {Name: "pytest.ini", Text: pytestINI}} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Text), 0o644))
	}
	return dir
}

// pytestRun is one run of the emitted test.
type pytestRun struct {
	failed, passed bool
	out            string
	secs           float64 // pytest's own count of the session
}

var pytestSecs = regexp.MustCompile(`(?m)^=* ?(\d+) (passed|failed)[^\n]* in (\d+\.\d+)s`)

// runPytest runs the test in dir n times with the numba python, pytest
// and env added, two at a time.
func runPytest(t *testing.T, dir string, n int, env []string, args ...string) []pytestRun {
	t.Helper()
	py := pythonWithNumba(t)
	if out, err := exec.Command(py, "-c", "import pytest").CombinedOutput(); err != nil {
		testenv.Unavailable(t, requireNumba, fmt.Sprintf("%s has no pytest (apt-get install -y python3-pytest): %s", py, out))
	}
	out := make([]pytestRun, n)
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-q", "test_swap_race.py"}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), "NUMBA_ENABLE_CUDASIM=1"), env...)
			b, _ := cmd.CombinedOutput()
			r := pytestRun{out: string(b)}
			if m := pytestSecs.FindStringSubmatch(r.out); m != nil {
				r.failed, r.passed = m[2] == "failed", m[2] == "passed"
				r.secs, _ = strconv.ParseFloat(m[3], 64)
			}
			out[i] = r
		})
	}
	wg.Wait()
	return out
}

// The emitted regression test of naive's counterexample fails on numba
// 0.56.4's own (naive) swap with the user's exact error, and passes with
// merged's swap installed in it; with NUMBA_CUDA_REPO, with numba-cuda's
// own swap at 55a84eb7 (naive, fails) and d41b90d3 (merged, passes). By
// default once each; with SWAPCHECK_LONG 10 times each (100 with
// -pyreplay.full), and as many
// under pytest-xdist (-p xdist -n 2) where it is installed
// (-pyreplay.emit-test-tally FILE writes the tally docs/replay.md shows;
// scripts/emit-test-tally.sh runs it).
func TestEmittedTestOnNumba(t *testing.T) {
	t.Parallel()
	runs := runsOf(10, 100)
	dir := emittedTest(t)
	type config struct {
		name string
		env  []string
		args []string
		fail bool
	}
	merged := "numba 0.56.4, merged's rendition installed"
	repo := os.Getenv("NUMBA_CUDA_REPO")
	if repo != "" {
		merged = "numba 0.56.4, numba-cuda d41b90d3's swap and kernel.py installed (merged)"
	}
	configs := []config{
		{name: "numba 0.56.4, its own swap (naive)", fail: true},
		{name: merged, env: []string{packageOverlays.env(t, "merged")}},
	}
	if repo != "" {
		configs = append(configs, config{name: "numba 0.56.4, numba-cuda 55a84eb7's swap and kernel.py installed (naive)",
			env: []string{packageOverlays.env(t, "naive")}, fail: true})
	}
	py := pythonWithNumba(t)
	if long() && exec.Command(py, "-c", "import xdist").Run() == nil {
		for _, c := range slices.Clone(configs) {
			c.name += ", pytest -p xdist -n 2"
			c.args = []string{"-p", "xdist", "-n", "2"}
			configs = append(configs, c)
		}
	}
	var table strings.Builder
	table.WriteString("| numba | runs | the test | slowest run (pytest's session time) |\n|---|---|---|---|\n")
	for _, c := range configs {
		rs := runPytest(t, dir, runs, c.env, c.args...)
		ok, slowest := 0, 0.0
		for _, r := range rs {
			slowest = max(slowest, r.secs)
			if c.fail && r.failed && strings.Contains(r.out, userError) || !c.fail && r.passed {
				ok++
			}
		}
		want := "passed"
		if c.fail {
			want = "failed with `" + userError + "`"
		}
		fmt.Fprintf(&table, "| %s | %d | %s %d of %d | %.2f s |\n", c.name, runs, want, ok, runs, slowest)
		for i, r := range rs {
			if c.fail {
				require.True(t, r.failed, "%s, run %d: the test did not fail:\n%s", c.name, i+1, r.out)
				require.Contains(t, r.out, userError, "%s, run %d", c.name, i+1)
			} else {
				require.True(t, r.passed, "%s, run %d: the test did not pass:\n%s", c.name, i+1, r.out)
			}
		}
	}
	if *emitTestTally != "" {
		require.NoError(t, os.WriteFile(*emitTestTally, []byte(table.String()), 0o644))
	}
}

// The emitted test's forcing depends on no bytecode: on the stand-in numba
// (the rendition target's), with naive's swap it fails with the user's
// error, with merged's it passes, on every CPython here (3.11 always;
// 3.12 and 3.13 where found), run by unittest.
func TestEmittedTestOnTheStandin(t *testing.T) {
	t.Parallel()
	dir := emittedTest(t)
	for _, py := range pythons(t) {
		for _, variant := range []string{"naive", "merged"} {
			t.Run(filepath.Base(py)+"/"+variant, func(t *testing.T) {
				pr, err := check.Lookup(variant)
				require.NoError(t, err)
				files, err := pyreplay.Standin(pr)
				require.NoError(t, err)
				root := t.TempDir()
				for _, f := range files {
					path := filepath.Join(root, filepath.FromSlash(f.Name))
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(f.Text), 0o644))
				}
				cmd := exec.Command(py, "-W", "error", "-m", "unittest", "test_swap_race")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PYTHONPATH="+root)
				out, err := cmd.CombinedOutput()
				if variant == "naive" {
					require.Error(t, err, "%s", out)
					require.Contains(t, string(out), userError)
				} else {
					require.NoError(t, err, "%s", out)
					require.Contains(t, string(out), "OK")
				}
			})
		}
	}
}

// pythons are the CPythons to run version-independent code on: the 3.11
// the replays use, and 3.12 and 3.13 where found (python3.12 on the PATH,
// or under pyenv's root).
func pythons(t *testing.T) []string {
	t.Helper()
	out := []string{testenv.Python311(t)}
	pythonsOnce.Do(func() {
		for _, v := range []string{"3.12", "3.13"} {
			if p, ok := pythonVersion(v); ok {
				otherPythons = append(otherPythons, p)
			}
		}
	})
	return append(out, otherPythons...)
}

var (
	pythonsOnce  sync.Once
	otherPythons []string
)

// pythonVersion finds CPython v (python3.12 on the PATH, else under
// pyenv's root; pyenv's shims run only the versions it is told to), and
// returns the interpreter it runs; the search (seconds through pyenv's
// shims) runs once per version and test binary.
func pythonVersion(v string) (string, bool) {
	pythonVersions.Lock()
	defer pythonVersions.Unlock()
	if f, ok := pythonVersions.found[v]; ok {
		return f.exe, f.ok
	}
	exe, ok := findPythonVersion(v)
	if pythonVersions.found == nil {
		pythonVersions.found = map[string]struct {
			exe string
			ok  bool
		}{}
	}
	pythonVersions.found[v] = struct {
		exe string
		ok  bool
	}{exe, ok}
	return exe, ok
}

// pythonVersions are pythonVersion's answers, by version.
var pythonVersions struct {
	sync.Mutex
	found map[string]struct {
		exe string
		ok  bool
	}
}

// findPythonVersion is pythonVersion's search.
func findPythonVersion(v string) (string, bool) {
	var cands []string
	if p, err := exec.LookPath("python" + v); err == nil {
		cands = append(cands, p)
	}
	if root, err := exec.Command("pyenv", "root").Output(); err == nil {
		m, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(root)), "versions", v+".*", "bin", "python"+v))
		cands = append(cands, m...)
	}
	for _, p := range cands {
		out, err := exec.Command(p, "-c", "import sys; print(sys.executable, '%d.%d' % sys.version_info[:2])").Output()
		exe, got, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
		if err == nil && ok && got == v {
			return exe, true
		}
	}
	return "", false
}

// What the test cannot force is refused in one line: the refcount
// family's races happen inside swapped_cuda_module, between two
// checkpoints; a kind that raises nothing; a file name pytest would not
// collect.
func TestEmitTestRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, variant string
		sh            scenario.Shape
		file, want    string
	}{
		{"an exception", "refcount-del", shape(3), "test_x.py", "cannot force the violation kind exception"},
		{"no use raises", "naive", scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2}, "test_x.py", "cannot force the violation kind use-saw-other-fake"},
		{"file name", "naive", shape(2), "swap_race.py", "name the test test_NAME.py"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := explore(t, tc.variant, tc.sh)
			_, err := pyreplay.EmitTest(rep, tc.file)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "\n")
			var un *pyreplay.Unsupported
			require.Equal(t, tc.name != "file name", errors.As(err, &un))
		})
	}
}

// The order of checkpoints is checked in the model: run whole, in that
// order, the parts must end in the counterexample's violation, or the
// test is refused (here a report whose violation is claimed by another
// thread than the one the parts end in).
func TestEmitTestChecksItsOrderInTheModel(t *testing.T) {
	t.Parallel()
	rep := explore(t, "naive", shape(2))
	_, err := pyreplay.EmitTest(rep, "test_x.py")
	require.NoError(t, err)
	other := *rep.Result.Failure
	other.Thread = 3 - other.Thread // T0 for T1: threads 1 and 2
	rep.Result.Failure = &other
	_, err = pyreplay.EmitTest(rep, "test_x.py")
	require.ErrorContains(t, err, "the regression test cannot force this interleaving")
}
