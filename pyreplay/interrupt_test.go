package pyreplay_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// interruptScenario is testdata/scenarios/interrupt.txt: two launches of
// one thread calling a device function, with an interrupt.
func interruptScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	f, err := os.Open("../testdata/scenarios/interrupt.txt")
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	require.True(t, sc.Faults.Has(scenario.FaultInterrupt))
	return sc
}

// interruptShape is the README table's "-threads 2 -faults interrupt".
func interruptShape() scenario.Shape {
	sh := shape(2)
	sh.Faults = sh.Faults.With(scenario.FaultInterrupt)
	return sh
}

// exploreInterrupt runs the default search (harmful violations, shrunk
// as explore shrinks) of variant on sc under the GIL.
func exploreInterrupt(t *testing.T, variant string, sc *scenario.Scenario) *check.Report {
	t.Helper()
	pr, err := check.Lookup(variant)
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: pr, Scenario: sc, Atomicity: model.GIL, Shrink: true})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict, "%s", variant)
	return rep
}

var landed = regexp.MustCompile(`(?m)^interrupt: turn \d+: KeyboardInterrupt raised in the host \(main thread\) by the check of \S+:\d+ (CALL|JUMP_BACKWARD)@\d+$`)

// Every buggy variant's interrupt counterexample, on interrupt.txt and on
// two threads, reproduces its violation on the rendition: the SIGINT made
// pending at the landing instruction is raised by CPython at that
// instruction's own check, in the host (the main thread).
func TestReplayOfInterrupts(t *testing.T) {
	t.Parallel()
	runs := count(1, 2)
	for _, variant := range []string{"naive", "global-lock", "refcount-unregistered", "refcount-del", "merged"} {
		for name, sc := range map[string]func(*testing.T) *scenario.Scenario{
			"interrupt.txt": interruptScenario,
			"threads 2":     func(t *testing.T) *scenario.Scenario { return buildScenario(t, interruptShape()) },
		} {
			t.Run(variant+"/"+name, func(t *testing.T) {
				testenv.Python311(t)
				rep := exploreInterrupt(t, variant, sc(t))
				script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
				for i, r := range runScript(t, script, runs) {
					require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
					require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(rep.Result.Schedule)), "run %d", i+1)
					require.Regexp(t, landed, r.stdout, "run %d", i+1)
					require.Contains(t, r.stdout, "verdict: reproduced "+rep.Result.Failure.Kind, "run %d", i+1)
				}
			})
		}
	}
}

// The same counterexamples on numba 0.56.4's real simulator: naive with
// numba's own swapped_cuda_module, the others with their rendition in its
// place.
func TestNumbaReplayOfInterrupts(t *testing.T) {
	t.Parallel()
	runs := count(1, 2)
	variants := []string{"naive", "merged"}
	if long() {
		variants = []string{"naive", "global-lock", "refcount-unregistered", "refcount-del", "merged"}
	}
	for _, variant := range variants {
		t.Run(variant, func(t *testing.T) {
			pythonWithNumba(t)
			rep := exploreInterrupt(t, variant, interruptScenario(t))
			args := []string{"--target", "numba"}
			if variant != "naive" {
				args = append(args, "--swap", "rendition")
			}
			script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
			for i, r := range runNumba(t, script, runs, args...) {
				require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
				require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(rep.Result.Schedule)), "run %d", i+1)
				require.Regexp(t, landed, r.stdout, "run %d", i+1)
				require.Contains(t, r.stdout, "verdict: reproduced "+rep.Result.Failure.Kind, "run %d", i+1)
			}
		})
	}
}

// interruptSeeds is how many random schedules with interrupts
// TestReplayOfInterruptsObservesWhatTheModelSees replays per variant.
var interruptSeeds = flag.Int("pyreplay.interrupt-seeds", 6, "random schedules with interrupts replayed per variant against the model")

// supportedRandom returns up to n random full schedules of p (seeds from
// 1) whose interrupts the replay can force, and how many seeds it tried.
func supportedRandom(t *testing.T, p *model.Program, n int, walk func(uint64) ([]sched.ThreadID, []string)) (scripts []string, kinds [][]string, tried int) {
	t.Helper()
	for seed := uint64(1); len(scripts) < n && seed <= uint64(40*n); seed++ {
		tried++
		sch, want := walk(seed)
		var b bytes.Buffer
		err := pyreplay.EmitSchedule(&b, p, sch, nil)
		var un *pyreplay.Unsupported
		if errors.As(err, &un) {
			require.Contains(t, err.Error(), "an interrupt that lands", "seed %d", seed)
			continue
		}
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), fmt.Sprintf("replay%d.py", seed))
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		scripts = append(scripts, path)
		kinds = append(kinds, want)
	}
	return scripts, kinds, tried
}

// On random full schedules with interrupts (those whose landings the
// replay forces), the replay observes exactly the violation kinds the
// model's steps and end state show.
func TestReplayOfInterruptsObservesWhatTheModelSees(t *testing.T) {
	t.Parallel()
	n := count(2, *interruptSeeds)
	for _, variant := range []string{"naive", "merged"} {
		t.Run(variant, func(t *testing.T) {
			interruptDifferential(t, testenv.Python311(t), variant, n)
		})
	}
	// a larger world: 2 blocks of 2 threads, 2 calls into 2 modules of 2 names
	t.Run("refcount-del/blocks 2, calls 2, modules 2, names 2", func(t *testing.T) {
		py := testenv.Python311(t)
		pr, err := check.Lookup("refcount-del")
		require.NoError(t, err)
		sh := scenario.Shape{Threads: 2, Blocks: 2, Calls: 2, Modules: 2, Names: 2}
		sh.Faults = sh.Faults.With(scenario.FaultInterrupt)
		p, err := model.NewProgram(buildScenario(t, sh), pr, model.GIL)
		require.NoError(t, err)
		interruptDifferentialP(t, py, p, (n+2)/3)
	})
}

// The same on numba's real simulator: naive's own swap, merged's
// rendition in its place.
func TestNumbaReplayOfInterruptsObservesWhatTheModelSees(t *testing.T) {
	t.Parallel()
	n := count(1, (*numbaSeeds+1)/2)
	for _, variant := range []string{"naive", "merged"} {
		t.Run(variant, func(t *testing.T) {
			args := []string{"--target", "numba"}
			if variant != "naive" {
				args = append(args, "--swap", "rendition")
			}
			interruptDifferential(t, pythonWithNumba(t), variant, n, args...)
		})
	}
}

func interruptDifferential(t *testing.T, py, variant string, n int, args ...string) {
	t.Helper()
	pr, err := check.Lookup(variant)
	require.NoError(t, err)
	p, err := model.NewProgram(interruptScenario(t), pr, model.GIL)
	require.NoError(t, err)
	interruptDifferentialP(t, py, p, n, args...)
}

// interruptDifferentialP replays n random schedules of p whose landings
// the script forces, and compares the kinds observed with the model's.
func interruptDifferentialP(t *testing.T, py string, p *model.Program, n int, args ...string) {
	t.Helper()
	scripts, wants, tried := supportedRandom(t, p, n, func(seed uint64) ([]sched.ThreadID, []string) { return modelKinds(t, p, seed) })
	require.Len(t, scripts, n, "only %d of %d seeds land where the replay can force", len(scripts), tried)
	for i, r := range runPython(py, scripts, args...) {
		require.Contains(t, r.stdout, "replay: all ", "script %d:\n%s", i+1, r.stdout)
		got := observedKinds(r.stdout)
		require.Equal(t, wants[i], got, "script %d:\n%s", i+1, r.stdout)
	}
}

// proposed under random schedules with interrupts (those the replay
// forces) shows no violation.
func TestReplayOfProposedUnderInterrupts(t *testing.T) {
	t.Parallel()
	n := count(2, 3)
	for name, sc := range map[string]func(*testing.T) *scenario.Scenario{
		"interrupt.txt": interruptScenario,
		"threads 2":     func(t *testing.T) *scenario.Scenario { return buildScenario(t, interruptShape()) },
	} {
		t.Run(name, func(t *testing.T) {
			py := testenv.Python311(t)
			pr, err := check.Lookup("proposed")
			require.NoError(t, err)
			p, err := model.NewProgram(sc(t), pr, model.GIL)
			require.NoError(t, err)
			scripts, _, tried := supportedRandom(t, p, n, func(seed uint64) ([]sched.ThreadID, []string) {
				return randomSchedule(t, p, seed), nil
			})
			require.Len(t, scripts, n, "only %d of %d seeds land where the replay can force", len(scripts), tried)
			sawInterrupt := false
			for i, r := range runPython(py, scripts) {
				require.Equal(t, 0, r.code, "script %d:\n%s", i+1, r.stdout)
				require.Contains(t, r.stdout, "verdict: no violation", "script %d", i+1)
				sawInterrupt = sawInterrupt || landed.MatchString(r.stdout)
			}
			require.True(t, sawInterrupt, "no replayed schedule had an interrupt")
		})
	}
}

// An interrupt that does not land where the model's did stops the
// replay (exit 2): merged's lands at the JUMP_BACKWARD of line 30's loop
// (after fn_globs[k] = fake_cuda_module); moved to the STORE_SUBSCR
// before it, the replay no longer follows the model (the host runs past
// the turns the model gives it); set at an instruction the host never
// reaches, the host reaches its next step first.
func TestReplayReportsADriftedInterrupt(t *testing.T) {
	t.Parallel()
	testenv.Python311(t)
	rep := exploreInterrupt(t, "merged", interruptScenario(t))
	var b bytes.Buffer
	require.NoError(t, pyreplay.Emit(&b, rep))
	text := b.String()
	const land = `\"line\":30,\"op\":\"JUMP_BACKWARD\",\"k\":0`
	require.Contains(t, text, land)
	for _, tc := range []struct {
		to, want string
	}{
		{`\"line\":30,\"op\":\"STORE_SUBSCR\",\"k\":0`, `host finished, but the model gives host merged.py:24  with lock:`},
		{`\"line\":30,\"op\":\"JUMP_BACKWARD\",\"k\":7`, `the interrupt was to land at merged.py:30 .*, but the host reached .* first`},
	} {
		path := filepath.Join(t.TempDir(), "replay.py")
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(text, land, tc.to, 1)), 0o644))
		r := runScript(t, path, 1)[0]
		require.Equal(t, 2, r.code, r.stdout)
		require.Regexp(t, "replay failed: turn \\d+ of \\d+: "+tc.want, r.stdout)
	}
}

// A landing the replay cannot force yet is refused in one line.
func TestEmitRefusesAnInterruptItCannotForce(t *testing.T) {
	t.Parallel()
	pr, err := check.Lookup("proposed")
	require.NoError(t, err)
	p, err := model.NewProgram(interruptScenario(t), pr, model.GIL)
	require.NoError(t, err)
	for seed := uint64(1); seed <= 300; seed++ {
		err := pyreplay.EmitSchedule(&bytes.Buffer{}, p, randomSchedule(t, p, seed), nil)
		var un *pyreplay.Unsupported
		if errors.As(err, &un) {
			require.Contains(t, err.Error(), "an interrupt that lands ")
			require.NotContains(t, err.Error(), "\n")
			return
		}
		require.NoError(t, err)
	}
	t.Fatal("no random schedule of 300 lands where the replay cannot force (the host's with-body, the polling loop)")
}

// The CPython facts the interrupt replay rests on hold on this python3
// (testdata/cpython/replay_interrupt.py): a SIGINT set pending as the
// trace function's last act is raised by the next check of the traced
// code (a C call's, a JUMP_BACKWARD's, a callee's RESUME, contextlib's
// __enter__ after a yield), with the trace function kept; one the trace
// function sets by a CALL is raised in itself.
func TestReplayInterruptFacts(t *testing.T) {
	t.Parallel()
	py := testenv.Python311(t)
	out, err := exec.Command(py, "../testdata/cpython/replay_interrupt.py").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"c_call", "jump_backward", "comp_skip", "callee_resume", "yield_return", "dies_closes", "control"} {
		require.Contains(t, string(out), name+": ok (", "%s", out)
	}
}

// The harm an interrupt leaves, on numba's own simulator and swap: a
// random schedule (the first seed whose model run has it) where the
// interrupt lands in launch 1's swap of naive, and launch 2's thread then
// runs with launch 1's FakeCUDAModule.
func TestNumbaReplayShowsALaunchWithAnEarlierLaunchsFake(t *testing.T) {
	t.Parallel()
	pythonWithNumba(t)
	pr, err := check.Lookup("naive")
	require.NoError(t, err)
	p, err := model.NewProgram(interruptScenario(t), pr, model.GIL)
	require.NoError(t, err)
	for seed := uint64(1); seed <= 100; seed++ {
		sch, kinds := modelKinds(t, p, seed)
		if !slices.Contains(kinds, check.KindUseSawOtherFake) {
			continue
		}
		expect := &sched.Failure{Kind: check.KindUseSawOtherFake, Message: fmt.Sprintf("random schedule, seed %d", seed)}
		script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, expect) })
		for i, r := range runNumba(t, script, 2, "--target", "numba") {
			require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
			require.Regexp(t, landed, r.stdout, "run %d", i+1)
			require.Regexp(t, `observed use-saw-other-fake: L2\.B0\.T0: a use of cuda saw launch 1's fake <numba\.cuda\.simulator\.kernelapi\.FakeCUDAModule object at 0x[0-9a-f]+>, not launch 2's fake`, r.stdout, "run %d", i+1)
			require.Contains(t, r.stdout, "verdict: reproduced use-saw-other-fake", "run %d", i+1)
		}
		return
	}
	t.Fatal("no random schedule of 100 has launch 2 use launch 1's fake")
}

// The unshrunk counterexample of refcount-del on interrupt.txt (109
// turns, two launches) replays on numba's launch machinery: its
// KeyboardInterrupt is checked where it lands even when CPython gives it
// the id of an exception freed earlier in the run (issue 31: keyed by
// id(), the landing was taken for an exception seen before, and the host
// ran past it).
func TestNumbaReplayOfAnUnshrunkInterrupt(t *testing.T) {
	t.Parallel()
	py := pythonWithNumba(t)
	pr, err := check.Lookup("refcount-del")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: pr, Scenario: interruptScenario(t), Atomicity: model.GIL})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })
	for i, r := range runPython(py, []string{script, script}, "--target", "numba", "--swap", "rendition") {
		require.Equal(t, 1, r.code, "run %d:\n%s", i+1, r.stdout)
		require.Regexp(t, landed, r.stdout, "run %d", i+1)
		require.Contains(t, r.stdout, "verdict: reproduced "+rep.Result.Failure.Kind, "run %d", i+1)
	}
}

// skipLanding is the first random schedule of p (and its model kinds)
// whose interrupt lands after a pass of line's comprehension that skipped
// its item (the host's last step read a global that is not numba.cuda).
func skipLanding(t *testing.T, p *model.Program, line string) ([]sched.ThreadID, []string) {
	t.Helper()
	for seed := uint64(1); seed <= 2000; seed++ {
		sch, kinds := modelKinds(t, p, seed)
		steps, err := check.Steps(p, sch)
		require.NoError(t, err)
		var last *model.Event
		for i, s := range steps {
			ev := &steps[i].Event
			if s.Thread == model.Host && strings.HasPrefix(ev.Where, p.Protocol.Source+":") {
				last = ev
			}
			if s.Thread != p.Signal() || last == nil || last.Where != line || !slices.ContainsFunc(ev.Effects, func(e string) bool {
				return strings.HasPrefix(e, "lands in the host at "+line)
			}) {
				continue
			}
			if !slices.ContainsFunc(last.Effects, func(e string) bool { return strings.HasSuffix(e, " is numba.cuda") }) {
				return sch, kinds
			}
		}
	}
	t.Fatalf("no random schedule of 2000 lands after a pass of %s that skipped its item", line)
	return nil, nil
}

// An interrupt that lands after a pass of merged.py:27's comprehension
// that skipped its item is set at the pass's POP_JUMP_BACKWARD_IF_FALSE,
// whose check raises it (testdata/cpython/replay_interrupt.py, comp_skip),
// not at a JUMP_BACKWARD such a pass never runs.
func TestReplayOfAnInterruptAfterASkippingPass(t *testing.T) {
	t.Parallel()
	pr, err := check.Lookup("merged")
	require.NoError(t, err)
	p, err := model.NewProgram(interruptScenario(t), pr, model.GIL)
	require.NoError(t, err)
	sch, kinds := skipLanding(t, p, "merged.py:27")
	var expect *sched.Failure
	if len(kinds) > 0 {
		expect = &sched.Failure{Kind: kinds[0], Message: "a random schedule"}
	}
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, expect) })
	for _, tc := range []struct {
		name string
		py   func(*testing.T) string
		args []string
	}{
		{"rendition", func(t *testing.T) string { return testenv.Python311(t) }, nil},
		{"numba", pythonWithNumba, []string{"--target", "numba", "--swap", "rendition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runPython(tc.py(t), []string{script}, tc.args...)[0]
			require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", len(sch)), r.stdout)
			require.Regexp(t, `(?m)^interrupt: turn \d+: KeyboardInterrupt raised in the host \(main thread\) by the check of \S+:\d+ POP_JUMP_BACKWARD_IF_FALSE@\d+$`, r.stdout)
		})
	}
}
