package check_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The new strategies on the real model: every protocol, every atomicity
// mode, two GPU threads calling one device function once. DPOR must give
// DFS's verdict, with the same end states when it proves the protocol;
// Bounded must find the failures DFS finds within three preemptions.

var report = flag.Bool("check.report", false, "log DPOR's executions against DFS's states and the number of interleavings on merged with 2-4 threads (slow)")

func modelProgram(t testing.TB, protocol *model.Protocol, threads int, a model.Atomicity) *model.Program {
	sc, err := scenario.Shape{Threads: threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, protocol, a)
	require.NoError(t, err)
	return prog
}

func TestStrategiesOnModel(t *testing.T) {
	for _, protocol := range check.Protocols() {
		for _, a := range model.Atomicities() {
			t.Run(protocol.Name+"/"+a.String(), func(t *testing.T) {
				prog := modelProgram(t, protocol, 2, a)
				build := func() sched.System { return check.NewSystem(prog) }

				dfsRec := newRecorder(build(), false)
				dfs := sched.DFS{}.Run(dfsRec, sched.Limits{})
				dporRec := newRecorder(build(), false)
				dpor := sched.DPOR{}.Run(dporRec, sched.Limits{})
				require.Equal(t, dfs.Verdict, dpor.Verdict, "dfs: %+v, dpor: %+v", dfs.Failure, dpor.Failure)
				if dfs.Verdict == sched.Verified {
					require.Equal(t, sorted(dfsRec.finals), sorted(dporRec.finals), "end states")
				} else {
					requireModelReplays(t, build, "dpor", dpor)
				}

				// Failures hidden: DPOR and Bounded see every kind of
				// failure DFS sees. (Past a hidden failure the state space
				// grows; free-threaded refcount-unregistered then takes DPOR
				// 2.4 million executions, over a minute: the GIL modes
				// only.)
				kinds := func(s sched.Strategy) []string {
					rec := newRecorder(build(), true)
					res := s.Run(rec, sched.Limits{})
					require.NotEqual(t, sched.Incomplete, res.Verdict, s.Name())
					if res.Verdict == sched.Violation {
						rec.kinds[res.Failure.Kind] = true
					}
					return sorted(rec.kinds)
				}
				want := kinds(sched.DFS{})
				if !a.NoGIL() {
					require.Equal(t, want, kinds(sched.DPOR{}), "dpor")
				}
				require.Equal(t, want, kinds(sched.Bounded{MaxPreemptions: 3}), "bounded")

				bounded := sched.Bounded{MaxPreemptions: 3}.Run(build(), sched.Limits{})
				pct := sched.PCT{Depth: 3, Runs: 2000, Chooser: sched.NewSeeded(1)}.Run(build(), sched.Limits{})
				if dfs.Verdict == sched.Violation {
					require.Equal(t, sched.Violation, bounded.Verdict)
					require.Equal(t, bounded.Preemptions, sched.CountPreemptions(build(), bounded.Schedule))
					requireModelReplays(t, build, "bounded", bounded)
					require.Equal(t, sched.Violation, pct.Verdict)
					requireModelReplays(t, build, "pct", pct)
					t.Logf("dfs finds %s in %d steps; bounded: %s with %d preemptions, %d steps; pct (depth 3, seed 1): %s in run %d",
						dfs.Failure.Kind, len(dfs.Schedule), bounded.Failure.Kind, bounded.Preemptions, len(bounded.Schedule), pct.Failure.Kind, pct.Stats.Executions)
				} else {
					require.NotEqual(t, sched.Violation, bounded.Verdict)
					require.NotEqual(t, sched.Violation, pct.Verdict)
					// A bound that stopped nothing proves: DFS's end states.
					rec := newRecorder(build(), false)
					if res := (sched.Bounded{MaxPreemptions: 5}).Run(rec, sched.Limits{}); res.Verdict == sched.Verified {
						require.Equal(t, sorted(dfsRec.finals), sorted(rec.finals), "bounded end states")
						t.Logf("bounded: verified, every state within %d preemptions", res.Preemptions)
					}
				}
				t.Logf("dfs: %d states; dpor: %d executions (%d sleep-blocked)", dfs.Stats.States, dpor.Stats.Executions, dpor.Stats.SleepBlocked)
			})
		}
	}
}

func requireModelReplays(t *testing.T, build func() sched.System, name string, res sched.Result) {
	t.Helper()
	require.Equal(t, sched.Violation, res.Verdict, name)
	got, err := sched.Replay(build(), res.Schedule, sched.Limits{})
	require.NoError(t, err, name)
	require.Equal(t, sched.Violation, got.Verdict, name)
	require.Equal(t, res.Failure.Kind, got.Failure.Kind, name)
}

// TestReportReduction logs, for merged under the GIL with 2-4 GPU
// threads, the executions DPOR runs against the states DFS stores and the
// interleavings a plain enumeration would run (counted, not run). Run
// with -check.report.
func TestReportReduction(t *testing.T) {
	if !*report {
		t.Skip("run with -check.report")
	}
	protocol, err := check.Lookup("merged")
	require.NoError(t, err)
	for threads := 2; threads <= 4; threads++ {
		prog := modelProgram(t, protocol, threads, model.GIL)
		paths := interleavings(check.NewSystem(prog), map[string]float64{})
		start := time.Now()
		dfs := sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
		dfsTime := time.Since(start)
		start = time.Now()
		dpor := sched.DPOR{}.Run(check.NewSystem(prog), sched.Limits{})
		dporTime := time.Since(start)
		require.Equal(t, dfs.Verdict, dpor.Verdict)
		t.Logf("merged, %d threads: %.3g interleavings; dfs %d states, %d executions (%v); dpor %d executions, %d sleep-blocked, %d steps (%v)",
			threads, paths, dfs.Stats.States, dfs.Stats.Executions, dfsTime.Round(time.Millisecond),
			dpor.Stats.Executions, dpor.Stats.SleepBlocked, dpor.Stats.Steps, dporTime.Round(time.Millisecond))
	}
}

// interleavings counts the executions a plain enumeration runs from s (each
// ending at a failure, a deadlock or the end), by counting the paths of
// the state graph: the state decides the rest.
func interleavings(s sched.System, memo map[string]float64) float64 {
	k := string(s.AppendKey(nil))
	if v, ok := memo[k]; ok {
		return v
	}
	runnable, _ := runnableOf(s)
	total := 0.0
	for _, t := range runnable {
		c := s.Clone()
		if c.Step(t) != nil {
			total++
			continue
		}
		total += interleavings(c, memo)
	}
	if len(runnable) == 0 {
		total = 1
	}
	memo[k] = total
	return total
}

// independenceViolation checks, at state s, what DPOR assumes of two
// threads' independent next steps (u runnable, v not done): u's step
// leaves v's status and next step as they were, and, when v can run too,
// the two give the same state in either order. It returns "" or what
// broke.
func independenceViolation(s sched.System) string {
	n := sched.ThreadID(s.NumThreads())
	for u := range n {
		if s.Status(u) != sched.Runnable {
			continue
		}
		fu := s.Footprint(u)
		for v := range n {
			if v == u || s.Status(v) == sched.Done {
				continue
			}
			fv := s.Footprint(v)
			if fu.Dependent(fv) {
				continue
			}
			if s.Status(v) == sched.Blocked && !fv.MayBlock {
				return fmt.Sprintf("thread %d is blocked at a step %+v without MayBlock", v, fv)
			}
			uv := s.Clone()
			uv.Step(u)
			if got := uv.Status(v); got != s.Status(v) {
				return fmt.Sprintf("thread %d's step %+v makes thread %d's independent step %+v %s (was %s)", u, fu, v, fv, got, s.Status(v))
			}
			if got := uv.Footprint(v); got != fv {
				return fmt.Sprintf("thread %d's step %+v changes thread %d's next step from %+v to %+v", u, fu, v, fv, got)
			}
			if s.Status(v) != sched.Runnable {
				continue
			}
			uv.Step(v)
			vu := s.Clone()
			vu.Step(v)
			vu.Step(u)
			if string(uv.AppendKey(nil)) != string(vu.AppendKey(nil)) {
				return fmt.Sprintf("threads %d (%+v) and %d (%+v) do not commute", u, fu, v, fv)
			}
		}
	}
	return ""
}

// The model's footprints give DPOR what it relies on, along random walks
// over scenarios with barriers, several blocks, launches and exceptions.
func TestModelFootprintsForDPOR(t *testing.T) {
	scenarios := map[string]string{
		"two calls, syncthreads": "",
		"raises": `threads 3
launches 2
module kernels cuda
module helpers cuda cu
device g in helpers: use cu.local; raise
device f in helpers: use cuda.local; call g
kernel: use cuda.threadIdx; call f; syncthreads`,
	}
	shapes := map[string]scenario.Shape{
		"two calls, syncthreads": {Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 2, Nest: 1, Syncthreads: true},
		"blocks":                 {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1},
	}
	names := []string{"two calls, syncthreads", "blocks", "raises"}
	for _, name := range names {
		var sc *scenario.Scenario
		var err error
		if sh, ok := shapes[name]; ok {
			sc, err = sh.Build()
		} else {
			sc, err = scenario.Parse(strings.NewReader(scenarios[name]))
		}
		require.NoError(t, err)
		for _, protocol := range check.Protocols() {
			for _, a := range model.Atomicities() {
				t.Run(fmt.Sprintf("%s/%s/%s", name, protocol.Name, a), func(t *testing.T) {
					prog, err := model.NewProgram(sc, protocol, a)
					require.NoError(t, err)
					for seed := range uint64(5) {
						s := sched.System(check.NewSystem(prog))
						c := sched.NewSeeded(seed)
						for step := 0; ; step++ {
							require.Empty(t, independenceViolation(s), "seed %d, after %d steps", seed, step)
							r, _ := runnableOf(s)
							if len(r) == 0 {
								break
							}
							s.Step(c.Choose(r))
						}
					}
				})
			}
		}
	}
}
