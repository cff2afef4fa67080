package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// landingOf is where the interrupt of schedule landed, as the SIGINT
// step's trace says ("merged.py:24", "the poll", ...).
func landingOf(t *testing.T, prog *model.Program, schedule []sched.ThreadID) string {
	t.Helper()
	w := model.New(prog)
	w.Trace = true
	for _, u := range schedule {
		ev := w.Step(int(u))
		if int(u) != prog.Signal() || ev.Raised != model.KeyboardInterrupt {
			continue
		}
		for _, e := range ev.Effects {
			if rest, ok := strings.CutPrefix(e, "lands in the host at "); ok {
				return strings.Fields(rest)[0]
			}
			if strings.HasPrefix(e, "lands in ") {
				return strings.TrimPrefix(strings.SplitN(e, ":", 2)[0], "lands in ")
			}
		}
	}
	return ""
}

// The harm the fixture names, found by the search on its own: on
// testdata/scenarios/interrupt.txt (two launches, one thread, faults
// interrupt), the shortest counterexample where launch 2 sees launch 1's
// fake (use-saw-other-fake) exists for every variant under gil and
// gil-breaker, and its interrupt lands where docs/cpython-switch-points.md
// says an interrupt leaves the module swapped: merged and the refcount
// variants at 30 or 24 (or 43 between pop and update), global-lock at 28
// or 20, naive at 15. And for every variant some execution ends with a
// module left swapped (left-swapped).
func TestInterruptHarmIsFoundWhereTheFixtureSays(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "scenarios", "interrupt.txt"))
	require.NoError(t, err)
	sc, err := scenario.Parse(f)
	f.Close()
	require.NoError(t, err)
	harmful := map[string][]string{
		"naive":                 {"naive.py:15"},
		"global-lock":           {"global_lock.py:28", "global_lock.py:20"},
		"refcount-unregistered": {"refcount_unregistered.py:30", "refcount_unregistered.py:24", "refcount_unregistered.py:43"},
		"refcount-del":          {"refcount_del.py:30", "refcount_del.py:24", "refcount_del.py:43"},
		"merged":                {"merged.py:30", "merged.py:24", "merged.py:43"},
		// proposed installs its dispatcher for good: nothing is left
		// half-swapped wherever the interrupt lands
		"proposed": nil,
		// merged-fix counts itself in before it swaps, inside the try,
		// and restores with one call last (docs/merged_fix.md)
		"merged-fix": nil,
	}
	for _, v := range variants.All() {
		for _, a := range []model.Atomicity{model.GIL, model.GILBreaker} {
			t.Run(v.Protocol.Name+"/"+a.String(), func(t *testing.T) {
				prog, err := model.NewProgram(sc, v.Protocol, a)
				require.NoError(t, err)
				lands, ok := harmful[v.Protocol.Name]
				require.True(t, ok, "%s: say where an interrupt leaves its module swapped (docs/cpython-switch-points.md), or nil if nowhere, in this test's harmful", v.Protocol.Name)
				for _, kind := range []string{KindUseSawOtherFake, KindLeftSwapped} {
					res := sched.BFS{}.Run(newAimed(NewSystem(prog), kind, Harmful, -1), sched.Limits{})
					if lands == nil {
						require.Equal(t, sched.Verified, res.Verdict, "%s: %s", kind, res.Verdict)
						continue
					}
					require.Equal(t, sched.Violation, res.Verdict, kind)
					require.True(t, replaysTo(prog, res.Schedule, kind), kind)
					land := landingOf(t, prog, res.Schedule)
					t.Logf("%s: %d steps, the interrupt lands at %s", kind, len(res.Schedule), land)
					if kind == KindUseSawOtherFake {
						require.Contains(t, lands, land)
					}
				}
			})
		}
	}
}
