package pyreplay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

type run struct {
	code   int
	stdout string
}

// runScript runs the script n times on python3 (runPython).
func runScript(t *testing.T, script string, n int) []run {
	t.Helper()
	scripts := make([]string, n)
	for i := range scripts {
		scripts[i] = script
	}
	return runPython(testenv.Python311(t), scripts)
}

// runPython runs each script with args on py, two at a time (the
// machine's cores are shared), and returns each run's exit status and
// output.
func runPython(py string, scripts []string, args ...string) []run {
	return runPythonEnv(py, nil, scripts, args...)
}

// runPythonEnv is runPython with env added to the environment.
func runPythonEnv(py string, env []string, scripts []string, args ...string) []run {
	out := make([]run, len(scripts))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, script := range scripts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(py, append([]string{script}, args...)...)
			cmd.Env = append(os.Environ(), env...)
			var stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stdout
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			out[i] = run{code, stdout.String()}
		})
	}
	wg.Wait()
	return out
}

func buildScenario(t *testing.T, sh scenario.Shape) *scenario.Scenario {
	t.Helper()
	sc, err := sh.Build()
	require.NoError(t, err)
	return sc
}

func writeScript(t *testing.T, emit func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, emit(&b))
	path := filepath.Join(t.TempDir(), "replay.py")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

func shape(threads int) scenario.Shape {
	sh := scenario.DefaultShape
	sh.Threads = threads
	return sh
}

// explore runs the tool's default search on a shape under the GIL.
func explore(t *testing.T, variant string, sh scenario.Shape) *check.Report {
	t.Helper()
	p, err := check.Lookup(variant)
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: buildScenario(t, sh), Atomicity: model.GIL})
	require.NoError(t, err)
	return rep
}

// The replay of each buggy variant's counterexample reproduces its
// violation on every run.
func TestReplayReproducesTheViolation(t *testing.T) {
	t.Parallel()
	runs := count(2, 20)
	for _, tc := range []struct {
		variant string
		threads int
	}{
		{"naive", 2},
		{"refcount-unregistered", 3},
		{"refcount-del", 3},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			testenv.Python311(t)
			rep := explore(t, tc.variant, shape(tc.threads))
			require.Equal(t, sched.Violation, rep.Result.Verdict)
			kind := rep.Result.Failure.Kind
			script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
			for i, r := range runScript(t, script, runs) {
				require.Equal(t, 1, r.code, "run %d of %d:\n%s", i+1, runs, r.stdout)
				require.Contains(t, r.stdout, "verdict: reproduced "+kind, "run %d", i+1)
				require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(rep.Result.Schedule)))
			}
		})
	}
}

// gil-breaker's counterexample, whose switches real 3.11 can all make,
// replays as gil's does.
func TestReplayOfGILBreaker(t *testing.T) {
	t.Parallel()
	testenv.Python311(t)
	p, err := check.Lookup("naive")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: buildScenario(t, shape(2)), Atomicity: model.GILBreaker})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
	for i, r := range runScript(t, script, 3) {
		require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
		require.Contains(t, r.stdout, "verdict: reproduced use-saw-real", "run %d", i+1)
	}
}

// The naive replay shows the user's error.
func TestReplayNaiveShowsTheUsersError(t *testing.T) {
	t.Parallel()
	testenv.Python311(t)
	rep := explore(t, "naive", shape(2))
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
	r := runScript(t, script, 1)[0]
	require.Contains(t, r.stdout, "observed error: T1: AttributeError: tid=[1, 0, 0] ctaid=[0, 0, 0]: module 'numba.cuda' has no attribute 'local'", r.stdout)
	require.Contains(t, r.stdout, "observed use-saw-real: T1: a use of cuda saw the real module numba.cuda, not launch 1's fake", r.stdout)
}

// randomSchedule walks p to its end, each step a thread drawn from seed.
func randomSchedule(t *testing.T, p *model.Program, seed uint64) []sched.ThreadID {
	t.Helper()
	w := model.New(p)
	rng := rand.New(rand.NewPCG(seed, 0))
	var out []sched.ThreadID
	for len(out) < 100_000 {
		var runnable []int
		for u := range w.NumThreads() {
			if w.Status(u) == sched.Runnable {
				runnable = append(runnable, u)
			}
		}
		if len(runnable) == 0 {
			return out
		}
		u := runnable[rng.IntN(len(runnable))]
		w.Step(u)
		out = append(out, sched.ThreadID(u))
	}
	t.Fatal("the random walk did not end")
	return nil
}

// Replays of random schedules of the correct variants, on fault-free
// single-host scenarios, see no violation.
func TestReplayOfCorrectVariantsSeesNoViolation(t *testing.T) {
	t.Parallel()
	seeds := count(1, 10)
	shapes := map[string]scenario.Shape{
		"threads 2":          shape(2),
		"threads 3":          shape(3),
		"calls 2, modules 2": {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
		"blocks 2, names 2":  {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 2},
	}
	scenarios := map[string]*scenario.Scenario{}
	for name, sh := range shapes {
		scenarios[name] = buildScenario(t, sh)
	}
	twoLaunches, err := scenario.Parse(strings.NewReader(`threads 2
launches 2
module kernels cuda
module dev1 cuda
device f1 in dev1: use cuda.local
kernel: use cuda.threadIdx; call f1
`))
	require.NoError(t, err)
	scenarios["launches 2"] = twoLaunches
	for _, variant := range []string{"merged", "global-lock", "proposed"} {
		for name, sc := range scenarios {
			t.Run(variant+"/"+name, func(t *testing.T) {
				testenv.Python311(t)
				pr, err := check.Lookup(variant)
				require.NoError(t, err)
				p, err := model.NewProgram(sc, pr, model.GIL)
				require.NoError(t, err)
				var scripts []string
				for seed := range uint64(seeds) {
					sch := randomSchedule(t, p, seed+1)
					scripts = append(scripts, writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, nil) }))
				}
				for i, s := range scripts {
					r := runScript(t, s, 1)[0]
					require.Contains(t, r.stdout, "replay: all ", "seed %d:\n%s", i+1, r.stdout)
					require.Equal(t, 0, r.code, "seed %d:\n%s", i+1, r.stdout)
					require.Contains(t, r.stdout, "verdict: no violation", "seed %d", i+1)
				}
			})
		}
	}
}

// A turn the script cannot force is a replay failure (exit 2), not
// skipped: here T1's first turn is given to T0, so T0 reaches another
// step than its next turn's, and T1 a step before its first turn's.
func TestReplayReportsATurnItCannotForce(t *testing.T) {
	t.Parallel()
	testenv.Python311(t)
	rep := explore(t, "naive", shape(2))
	var b bytes.Buffer
	require.NoError(t, pyreplay.Emit(&b, rep))
	text := b.String()
	const t1, t0 = `{\"thread\":2,`, `{\"thread\":1,`
	require.Contains(t, text, t1)
	path := filepath.Join(t.TempDir(), "replay.py")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(text, t1, t0, 1)), 0o644))
	r := runScript(t, path, 1)[0]
	require.Equal(t, 2, r.code, r.stdout)
	// Which of the two notices first depends on the threads' timing.
	require.Regexp(t, `replay failed: turn (15|16) of 22: T[01] reached .*, but the model's next step for it is`, r.stdout)
}

// tamper rewrites the turn list a script embeds.
func tamper(t *testing.T, script string, change func(turns []any) []any) string {
	t.Helper()
	start := strings.Index(script, "DATA = json.loads(")
	require.GreaterOrEqual(t, start, 0)
	start += len("DATA = json.loads(")
	end := start + strings.Index(script[start:], ")\n")
	blob, err := strconv.Unquote(script[start:end])
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(blob), &d))
	d["turns"] = change(d["turns"].([]any))
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return script[:start] + strconv.Quote(string(b)) + script[end:]
}

// A thread given a turn while it is blocked on a lock another thread holds
// is a replay failure: here the turn of a thread's acquire of the module
// lock is moved before the other thread's release of it.
func TestReplayReportsABlockedTurn(t *testing.T) {
	t.Parallel()
	py := testenv.Python311(t)
	pr, err := check.Lookup("merged")
	require.NoError(t, err)
	p, err := model.NewProgram(buildScenario(t, shape(2)), pr, model.GIL)
	require.NoError(t, err)
	for seed := uint64(1); seed <= 50; seed++ {
		sch := randomSchedule(t, p, seed)
		steps, err := check.Steps(p, sch)
		require.NoError(t, err)
		for i := 0; i+1 < len(steps); i++ {
			a, b := steps[i], steps[i+1]
			if a.Thread == b.Thread || a.Event.Line != 24 || b.Event.Line != 24 ||
				!strings.HasPrefix(a.Event.Bytecode, "CALL (lock.__exit__") || !strings.HasPrefix(b.Event.Bytecode, "BEFORE_WITH") {
				continue
			}
			var buf bytes.Buffer
			require.NoError(t, pyreplay.EmitSchedule(&buf, p, sch, nil))
			script := tamper(t, buf.String(), func(turns []any) []any {
				turns[i], turns[i+1] = turns[i+1], turns[i]
				return turns
			})
			path := filepath.Join(t.TempDir(), "replay.py")
			require.NoError(t, os.WriteFile(path, []byte(script), 0o644))
			out, err := exec.Command(py, path, "--timeout", "1").CombinedOutput()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "%s", out)
			require.Equal(t, 2, ee.ExitCode(), "%s", out)
			require.Contains(t, string(out), fmt.Sprintf("replay failed: turn %d of %d (%s: merged.py:24  with lock:) could not be forced within 1.0s", i+1, len(sch), p.ThreadName(b.Thread)), "%s", out)
			require.Contains(t, string(out), "has not reached its next step (blocked, on a lock for one)", "%s", out)
			return
		}
	}
	t.Fatal("no random schedule of 50 has an acquire right after another thread's release")
}

// What the replay cannot force is refused in one line naming it.
func TestEmitRefusesWhatItDoesNotSupport(t *testing.T) {
	t.Parallel()
	deadlock := &sched.Failure{Kind: check.KindDeadlock, Thread: -1}
	linear := &sched.Failure{Kind: check.KindNotLinearizable, Thread: -1}
	for _, tc := range []struct {
		name   string
		a      model.Atomicity
		expect *sched.Failure
		want   string
	}{
		{"free-threaded", model.FreeThreaded, nil, "atomicity free-threaded"},
		{"free-threaded-overwrite", model.FreeThreadedOverwrite, nil, "atomicity free-threaded-overwrite"},
		{"deadlock", model.GIL, deadlock, "the violation kind deadlock"},
		{"not-linearizable", model.GIL, linear, "the violation kind not-linearizable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := check.Lookup("naive")
			require.NoError(t, err)
			p, err := model.NewProgram(buildScenario(t, shape(2)), pr, tc.a)
			require.NoError(t, err)
			err = pyreplay.EmitSchedule(&bytes.Buffer{}, p, nil, tc.expect)
			var un *pyreplay.Unsupported
			require.ErrorAs(t, err, &un)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}

// Emit refuses a report without a violation.
func TestEmitRefusesAVerdictWithoutViolation(t *testing.T) {
	t.Parallel()
	rep := explore(t, "merged", shape(2))
	require.Equal(t, sched.Verified, rep.Result.Verdict)
	err := pyreplay.Emit(&bytes.Buffer{}, rep)
	require.ErrorContains(t, err, "no schedule to replay")
}

// A scenario in the language's newer constructs (a module without cuda,
// parameters and arguments, a branch on the block's index, an attribute
// chain, other globals) replays to the model's violation: the script
// renders each, and its judge reads a module with no name bound to cuda.
func TestReplayOfTheNewerConstructs(t *testing.T) {
	t.Parallel()
	testenv.Python311(t)
	sc, err := scenario.Parse(strings.NewReader(`threads 2
blocks 2
module kernels np=numpy cuda
module helpers cuda N=4
module mathlib
device square(x) in mathlib: pass
device f(n) in helpers: l = cuda.local.array; call square(n)
kernel: i = cuda.threadIdx.x; if bid == 0: call f(i); else: call square(3); end
host: launch; call square(2)
`))
	require.NoError(t, err)
	p, err := check.Lookup("naive")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
	for i, r := range runScript(t, script, 2) {
		require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
		require.Contains(t, r.stdout, "verdict: reproduced "+rep.Result.Failure.Kind, "run %d", i+1)
	}
}
