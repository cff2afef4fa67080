package pyreplay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/pysource"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// sourceCounterexample checks file's swap from source (CPython version v's
// bytecode) on shape under a, and returns the program and its violation.
func sourceCounterexample(t *testing.T, v, file string, sh scenario.Shape, a model.Atomicity) (*source.Program, sched.Result) {
	t.Helper()
	sc, err := sh.Build()
	require.NoError(t, err)
	return sourceScenarioCounterexample(t, v, file, sc, a)
}

// sourceScenarioCounterexample is sourceCounterexample on a scenario.
func sourceScenarioCounterexample(t *testing.T, v, file string, sc *scenario.Scenario, a model.Atomicity) (*source.Program, sched.Result) {
	t.Helper()
	in, err := findPython(v)
	if err != nil {
		testenv.Unavailable(t, testenv.RequirePython, "no CPython "+v+" to compile "+file+" with: "+err.Error())
	}
	src, err := pysource.Load(in, file)
	require.NoError(t, err)
	p, err := source.Load(src, sc, a)
	require.NoError(t, err)
	res := sched.States{}.Run(source.New(p), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict, "%s from source", file)
	return p, res
}

// findPython is pysource.Find, once per version (a search runs each
// candidate interpreter: seconds under pyenv's shims). Where
// pythonVersion finds that version, the search looks only at it, as
// python<v> on a PATH of its own (the cli's -source tests do the same):
// the interpreter is the one Find would run, found without probing every
// shim of the machine's PATH and pyenv.
func findPython(v string) (pysource.Interpreter, error) {
	foundMu.Lock()
	defer foundMu.Unlock()
	if f, ok := found[v]; ok {
		return f.in, f.err
	}
	in, err := findPythonAlone(v)
	found[v] = foundPython{in, err}
	return in, err
}

// findPythonAlone is findPython's search.
func findPythonAlone(v string) (pysource.Interpreter, error) {
	exe, ok := pythonVersion(v)
	if !ok {
		return pysource.Find(v)
	}
	if foundDir == "" {
		dir, err := os.MkdirTemp("", "pyreplay-python-")
		if err != nil {
			return pysource.Interpreter{}, err
		}
		foundDir = dir // removed by TestMain
	}
	if err := os.Symlink(exe, filepath.Join(foundDir, "python"+v)); err != nil {
		return pysource.Interpreter{}, err
	}
	return pysource.FindIn(pysource.Env{Path: foundDir}, v)
}

type foundPython struct {
	in  pysource.Interpreter
	err error
}

var (
	foundMu sync.Mutex
	found   = map[string]foundPython{}
	// foundDir holds findPython's python<v> links
	foundDir string
)

func sourceScript(t *testing.T, p *source.Program, res sched.Result) string {
	t.Helper()
	return writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSource(b, p, res.Schedule, res.Failure) })
}

// requireReproduced checks a run of a -source replay: every turn forced,
// the file's function installed, the model's violation seen.
func requireReproduced(t *testing.T, r run, file string, res sched.Result, what string) {
	t.Helper()
	require.Equal(t, 1, r.code, "%s:\n%s", what, r.stdout)
	require.Contains(t, r.stdout, "replaced by swapped_cuda_module of "+filepath.Base(file), what)
	require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(res.Schedule)), what)
	require.Contains(t, r.stdout, "verdict: reproduced "+res.Failure.Kind, what)
}

// The buggy variants' Python, checked through -source with CPython 3.11's
// bytecode, give counterexamples that replay on numba's real CUDA
// simulator with the file's own function installed in it, every run, under
// gil and gil-breaker: the steps are anchored at the file's instructions,
// compiled again by the script's CPython and checked to be the model's.
func TestSourceReplayOnNumba(t *testing.T) {
	t.Parallel()
	runs := runsOf(20, 20)
	py := pythonWithNumba(t)
	for _, c := range []struct {
		file    string
		threads int
	}{
		{"naive.py", 2}, {"refcount_unregistered.py", 2}, {"refcount_del.py", 3},
	} {
		for _, a := range []model.Atomicity{model.GIL, model.GILBreaker} {
			t.Run(c.file+"/"+a.String(), func(t *testing.T) {
				file := filepath.Join("..", "testdata", "python", c.file)
				p, res := sourceCounterexample(t, "3.11", file, shape(c.threads), a)
				script := sourceScript(t, p, res)
				n := runs
				if a != model.GIL {
					n = runsOf(2, 20) // the long suite's 20 are gil's, CI's budget being near its bound
				}
				for i, r := range runPython(py, repeat(script, n), "--target", "numba") {
					requireReproduced(t, r, file, res, fmt.Sprintf("run %d of %d", i+1, n))
					require.Contains(t, r.stdout, "numba 0.", "run %d", i+1)
				}
			})
		}
	}
}

// The scenario files' worlds from source replay on numba too: raising
// kernels and the raise fault (merged's own bug: a lingering thread of an
// aborted launch swaps its module to None while the next launch runs),
// host calls, barriers. A thread that leaves the model's path through the
// file fails the replay: the model once made a lingering thread's use of
// the next launch's fake raise, which the real simulator does not (and
// naive.py's and refcount_del.py's replays on aborted-launch.txt caught
// it). Several hosts need numba-cuda's kernel.py: the stand-in has it. By
// default each scenario file replays with one file, aborted-launch.txt
// with merged.py (its own bug); SWAPCHECK_LONG=1 adds naive.py's and
// refcount_del.py's there.
func TestSourceReplayOfScenarioFilesOnNumba(t *testing.T) {
	t.Parallel()
	runs := runsOf(2, 2) // the long suite's time goes to the judged 20 of 20 (TestSourceReplayOnNumba)
	py := pythonWithNumba(t)
	_, files := scenarioFiles(t)
	for _, c := range []struct {
		file, scenario, kind string
		long                 bool // runs with SWAPCHECK_LONG=1 only
	}{
		{"merged.py", "aborted-launch.txt", "use-saw-none", false},
		{"naive.py", "aborted-launch.txt", "use-saw-real", true},
		{"refcount_del.py", "aborted-launch.txt", "exception", true},
		{"merged.py", "raise-fault.txt", "use-saw-other-fake", false},
		{"refcount_del.py", "lingering-thread.txt", "exception", false},
		{"naive.py", "host-calls.txt", "use-saw-real", false},
		{"refcount_unregistered.py", "syncthreads.txt", "exception", false},
		{"merged.py", "host-call-after-abort.txt", "use-saw-other-fake", false},
	} {
		t.Run(c.file+"/"+c.scenario, func(t *testing.T) {
			if c.long && !long() {
				t.Skip("merged.py's replay on this file runs by default; this one runs with SWAPCHECK_LONG=1")
			}
			file := filepath.Join("..", "testdata", "python", c.file)
			p, res := sourceScenarioCounterexample(t, "3.11", file, files[c.scenario], model.GIL)
			require.Equal(t, c.kind, res.Failure.Kind)
			script := sourceScript(t, p, res)
			for i, r := range runPython(py, repeat(script, runs), "--target", "numba") {
				requireReproduced(t, r, file, res, fmt.Sprintf("run %d of %d", i+1, runs))
			}
		})
	}
}

// numba-cuda's own kernelapi.py at the commits of the three buggy
// variants, unmodified, replays on numba's real simulator 20 runs of 20
// in the long suite (SWAPCHECK_NUMBA_CUDA_REPO names a clone; skipped
// without one, as the upstream agreement is).
func TestSourceReplayOfUpstreamOnNumba(t *testing.T) {
	t.Parallel()
	repo := os.Getenv("SWAPCHECK_NUMBA_CUDA_REPO")
	if repo == "" {
		t.Skip("SWAPCHECK_NUMBA_CUDA_REPO is not set: no clone of NVIDIA/numba-cuda to read kernelapi.py from")
	}
	runs := runsOf(20, 20)
	py := pythonWithNumba(t)
	for _, commit := range []string{"55a84eb7", "41104c54", "67acbfbd"} {
		t.Run(commit, func(t *testing.T) {
			out, err := exec.Command("git", "--git-dir", repo, "show", commit+":numba_cuda/numba/cuda/simulator/kernelapi.py").Output()
			if err != nil {
				out, err = exec.Command("git", "-C", repo, "show", commit+":numba_cuda/numba/cuda/simulator/kernelapi.py").Output()
			}
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "kernelapi.py")
			require.NoError(t, os.WriteFile(file, out, 0o644))
			p, res := sourceCounterexample(t, "3.11", file, shape(2), model.GIL)
			script := sourceScript(t, p, res)
			for i, r := range runPython(py, repeat(script, runs), "--target", "numba") {
				requireReproduced(t, r, file, res, fmt.Sprintf("%s run %d of %d", commit, i+1, runs))
			}
		})
	}
}

// With CPython 3.12 and 3.13 bytecode (comprehensions inlined, other
// eval-breaker checks), the counterexamples replay on the stand-in
// simulator run by that CPython; the script refuses another version's
// CPython in one line. By default each file and atomicity replays on one
// of the versions, in turn (eachOtherVersion); SWAPCHECK_LONG=1 on each.
func TestSourceReplayOnOtherVersions(t *testing.T) {
	t.Parallel()
	eachOtherVersion(t, func(t *testing.T, v, py string, on func(int) bool) {
		var scripts []string
		var results []sched.Result
		var files []string
		i := -1
		for _, c := range []string{"naive.py", "refcount_unregistered.py", "refcount_del.py"} {
			for _, a := range []model.Atomicity{model.GIL, model.GILBreaker} {
				if i++; !on(i) {
					continue
				}
				file := filepath.Join("..", "testdata", "python", c)
				p, res := sourceCounterexample(t, v, file, shape(2), a)
				scripts = append(scripts, sourceScript(t, p, res))
				results = append(results, res)
				files = append(files, file)
			}
		}
		for i, r := range runPython(py, scripts, "--target", "rendition") {
			requireReproduced(t, r, files[i], results[i], files[i])
		}
		r := runPython(testenv.Python311(t), scripts[:1], "--target", "rendition")[0]
		require.Equal(t, 2, r.code, r.stdout)
		require.Contains(t, r.stdout, "replay failed: the model ran CPython "+v+"'s bytecode of naive.py", r.stdout)
	})
}

// A turn is anchored at one pass of one instruction: a script whose turn
// names a later pass (the file's other code than the model ran) cannot
// force it and says so (exit 2), never a verdict.
func TestSourceReplayRefusesAnotherPass(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "testdata", "python", "refcount_del.py")
	p, res := sourceCounterexample(t, "3.11", file, shape(2), model.GIL)
	script := sourceScript(t, p, res)
	text, err := os.ReadFile(script)
	require.NoError(t, err)
	// the host's first turn in the file's code, moved to its second pass
	re := regexp.MustCompile(`(?m)^DATA = json\.loads\((.*)\)$`)
	m := re.FindSubmatch(text)
	require.NotNil(t, m)
	blob, err := strconv.Unquote(string(m[1]))
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(blob), &d))
	moved := false
	for _, tr := range d["turns"].([]any) {
		turn := tr.(map[string]any)
		if at := turn["at"].(map[string]any); at["src"] != nil && turn["thread"].(float64) == 0 {
			n, _ := turn["n"].(float64) // omitted when 0
			turn["n"] = n + 1
			moved = true
			break
		}
	}
	require.True(t, moved)
	out, err := json.Marshal(d)
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "replay.py")
	loc := re.FindSubmatchIndex(text)
	patched := append(append(append([]byte{}, text[:loc[2]]...), strconv.Quote(string(out))...), text[loc[3]:]...)
	require.NoError(t, os.WriteFile(bad, patched, 0o644))
	r := runPython(testenv.Python311(t), []string{bad}, "--target", "rendition", "--timeout", "1")[0]
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stdout, "replay failed: ", r.stdout)
	require.NotContains(t, r.stdout, "verdict:", r.stdout)
}

// What the script cannot force from source yet is refused in one line.
func TestEmitSourceRefuses(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "testdata", "python", "naive.py")
	for _, c := range []struct {
		name string
		sh   func(*scenario.Shape)
		a    model.Atomicity
		want string
	}{
		{"free-threaded", func(*scenario.Shape) {}, model.FreeThreaded, "atomicity free-threaded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh := shape(2)
			c.sh(&sh)
			p, res := sourceCounterexample(t, "3.11", file, sh, c.a)
			err := pyreplay.EmitSource(&bytes.Buffer{}, p, res.Schedule, res.Failure)
			var un *pyreplay.Unsupported
			require.True(t, errors.As(err, &un), "%v", err)
			require.Contains(t, err.Error(), c.want)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// The installed numba's own kernelapi.py (Debian's numba 0.56.4 has the
// naive swap), read as a maintainer has it, gives a counterexample that
// replays on that same simulator.
func TestSourceReplayOfInstalledNumba(t *testing.T) {
	t.Parallel()
	py := pythonWithNumba(t)
	out, err := exec.Command(py, "-c", "import numba.cuda.simulator.kernelapi as k; print(k.__file__)").Output()
	require.NoError(t, err)
	file := strings.TrimSpace(string(out))
	runs := runsOf(5, 20)
	p, res := sourceCounterexample(t, "3.11", file, shape(2), model.GIL)
	require.Equal(t, "use-saw-real", res.Failure.Kind)
	script := sourceScript(t, p, res)
	for i, r := range runPython(py, repeat(script, runs), "--target", "numba") {
		requireReproduced(t, r, file, res, fmt.Sprintf("run %d of %d", i+1, runs))
	}
}

// Several hosts from source replay on the stand-in simulator, which has
// numba-cuda's FakeCUDAKernel.__call__ (its device check).
func TestSourceReplayOfTwoHosts(t *testing.T) {
	t.Parallel()
	_, files := scenarioFiles(t)
	var scripts, paths []string
	var results []sched.Result
	for _, c := range []string{"naive.py", "refcount_del.py", "merged.py"} {
		file := filepath.Join("..", "testdata", "python", c)
		p, res := sourceScenarioCounterexample(t, "3.11", file, files["two-hosts.txt"], model.GIL)
		require.Equal(t, "use-saw-other-fake", res.Failure.Kind)
		scripts = append(scripts, sourceScript(t, p, res))
		paths = append(paths, file)
		results = append(results, res)
	}
	for i, r := range runPython(testenv.Python311(t), scripts, "--target", "rendition") {
		requireReproduced(t, r, paths[i], results[i], paths[i])
	}
}

// Interrupts from source replay: the SIGINT is set at the host's very
// instruction the model's landing names, at that pass, and CPython raises
// it at that instruction's own eval-breaker check, as pyvm says that
// version checks (3.12's and 3.13's landings too, on the stand-in: by
// default each case on one of them, in turn, with SWAPCHECK_LONG=1 on
// each; every case on 3.11 with numba).
func TestSourceReplayOfInterrupts(t *testing.T) {
	t.Parallel()
	_, files := scenarioFiles(t)
	type tc struct {
		file string
		sc   *scenario.Scenario
	}
	sh := shape(2)
	sh.Faults = sh.Faults.With(scenario.FaultInterrupt)
	flags, err := sh.Build()
	require.NoError(t, err)
	cases := []tc{{"naive.py", files["interrupt.txt"]}, {"merged.py", files["interrupt.txt"]}, {"merged.py", flags}, {"refcount_del.py", flags}}
	run := func(t *testing.T, v, py, target string, on func(int) bool) {
		var scripts, paths []string
		var results []sched.Result
		for i, c := range cases {
			if !on(i) {
				continue
			}
			file := filepath.Join("..", "testdata", "python", c.file)
			p, res := sourceScenarioCounterexample(t, v, file, c.sc, model.GIL)
			scripts = append(scripts, sourceScript(t, p, res))
			paths = append(paths, file)
			results = append(results, res)
		}
		for i, r := range runPython(py, scripts, "--target", target) {
			requireReproduced(t, r, paths[i], results[i], paths[i])
			require.Contains(t, r.stdout, "KeyboardInterrupt raised in the host (main thread) by the check of ", paths[i])
		}
	}
	all := func(int) bool { return true }
	t.Run("3.11-numba", func(t *testing.T) { run(t, "3.11", pythonWithNumba(t), "numba", all) })
	eachOtherVersion(t, func(t *testing.T, v, py string, on func(int) bool) { run(t, v, py, "rendition", on) })
}

// eachOtherVersion runs f in a subtest for CPython 3.12 and for 3.13,
// each where this machine has it (otherVersions skips the test, or fails
// it with SWAPCHECK_REQUIRE_PYTHON, when it has neither); f's on(i) says
// whether its i-th case runs on that version (onVersion: by default each
// case on one of them, in turn; with long on each).
func eachOtherVersion(t *testing.T, f func(t *testing.T, v, py string, on func(i int) bool)) {
	otherVersions(t)
	var vs, pys []string
	for _, v := range []string{"3.12", "3.13"} {
		if py, ok := pythonVersion(v); ok {
			vs, pys = append(vs, v), append(pys, py)
		}
	}
	for k, v := range vs {
		t.Run(v, func(t *testing.T) {
			f(t, v, pys[k], func(i int) bool { return onVersion(i, k, len(vs)) })
		})
	}
}

// The deadlock -source finds in merged's swap on CPython 3.13.0 (a Ctrl-C
// at the scan's skipping JUMP_BACKWARD, which no exception-table entry
// covers, leaves the module's lock held: the next launch waits for it for
// good) happens on the real CPython 3.13.0: every turn forced, the host
// then stands at the with statement's BEFORE_WITH, a second apart.
func TestSourceReplayOfTheDeadlockOn313(t *testing.T) {
	t.Parallel()
	py, ok := pythonVersion("3.13")
	if !ok {
		testenv.Unavailable(t, testenv.RequirePython, "no CPython 3.13 to replay its deadlock on")
	}
	in, err := findPython("3.13")
	require.NoError(t, err)
	_, files := scenarioFiles(t)
	file := filepath.Join("..", "testdata", "python", "merged.py")
	src, err := pysource.Load(in, file)
	require.NoError(t, err)
	p, err := source.Load(src, files["interrupt.txt"], model.GIL)
	require.NoError(t, err)
	res := sched.States{}.Run(sched.NewAiming(source.New(p), sched.KindDeadlock), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	require.Equal(t, sched.KindDeadlock, res.Failure.Kind)
	script := sourceScript(t, p, res)
	r := runPython(py, []string{script}, "--target", "rendition", "--timeout", "2")[0]
	requireReproduced(t, r, file, res, "the 3.13 deadlock")
	require.Regexp(t, `observed deadlock: host: waits at merged\.py:\d+ BEFORE_WITH`, r.stdout)
}
