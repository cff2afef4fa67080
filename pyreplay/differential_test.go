package pyreplay_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// modelKinds walks p along a random full schedule and returns it with the
// violation kinds the model sees on the way (every step's, not only the
// first) and at the end.
func modelKinds(t *testing.T, p *model.Program, seed uint64) ([]sched.ThreadID, []string) {
	t.Helper()
	w := model.New(p)
	rng := rand.New(rand.NewPCG(seed, 0))
	var sch []sched.ThreadID
	kinds := map[string]bool{}
	for {
		var runnable []int
		for u := range w.NumThreads() {
			if w.Status(u) == sched.Runnable {
				runnable = append(runnable, u)
			}
		}
		if len(runnable) == 0 {
			break
		}
		require.Less(t, len(sch), 100_000, "the random walk did not end")
		u := runnable[rng.IntN(len(runnable))]
		ev := w.Step(u)
		sch = append(sch, sched.ThreadID(u))
		switch {
		case ev.Aborted:
			// after failure: only a thread of a failed launch saw it
		case ev.Kind == model.EvUse && ev.Saw != ev.Want && ev.Saw == model.Real:
			kinds[check.KindUseSawReal] = true
		case ev.Kind == model.EvUse && ev.Saw != ev.Want && ev.Saw == model.None:
			kinds[check.KindUseSawNone] = true
		case ev.Kind == model.EvUse && ev.Saw != ev.Want:
			kinds[check.KindUseSawOtherFake] = true
		case ev.Raised != 0 && ev.Machinery:
			kinds[check.KindException] = true
		}
	}
	for m, mod := range p.Scenario.Modules {
		for i := range mod.Names {
			if w.GlobalValue(m, i) != model.Real {
				kinds[check.KindLeftSwapped] = true
			}
		}
		// as check's end-state check: a count of 0 is no leftover where
		// the protocol reads it through its default
		// (Protocol.ZeroCountIsMissing)
		if r := w.Registry(m); r.HasCount && (r.Count != 0 || !p.Protocol.ZeroCountIsMissing) || r.HasSaved {
			kinds[check.KindRegistryLeft] = true
		}
	}
	var out []string
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return sch, out
}

var observed = regexp.MustCompile(`(?m)^observed ([a-z-]+):`)

// observedKinds are the violation kinds a replay's output shows (not its
// interrupts, the errors a kernel raised, nor what only threads of a
// failed launch saw), sorted, each once.
func observedKinds(stdout string) []string {
	var got []string
	for _, m := range observed.FindAllStringSubmatch(stdout, -1) {
		if k := m[1]; k != "interrupt" && k != "error" && !slices.Contains(got, k) {
			got = append(got, k)
		}
	}
	slices.Sort(got)
	return got
}

// On random full schedules of the buggy variants, the replay observes
// exactly the violation kinds the model's steps and end state show.
func TestReplayObservesWhatTheModelSees(t *testing.T) {
	t.Parallel()
	seeds := count(2, 8)
	twoBlocks := scenario.Shape{Threads: 2, Blocks: 2, Calls: 2, Modules: 2, Names: 1}
	for _, tc := range []struct {
		variant string
		sh      scenario.Shape
	}{
		{"naive", shape(2)},
		{"naive", shape(3)},
		{"naive", twoBlocks},
		{"refcount-unregistered", shape(3)},
		{"refcount-del", shape(3)},
		{"refcount-del", twoBlocks},
	} {
		t.Run(fmt.Sprintf("%s/%+v", tc.variant, tc.sh), func(t *testing.T) {
			testenv.Python311(t)
			pr, err := check.Lookup(tc.variant)
			require.NoError(t, err)
			p, err := model.NewProgram(buildScenario(t, tc.sh), pr, model.GIL)
			require.NoError(t, err)
			for seed := range uint64(seeds) {
				sch, want := modelKinds(t, p, seed+1)
				script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, nil) })
				r := runScript(t, script, 1)[0]
				require.Contains(t, r.stdout, "replay: all ", "seed %d:\n%s", seed+1, r.stdout)
				require.Equal(t, want, observedKinds(r.stdout), "seed %d:\n%s", seed+1, r.stdout)
			}
		})
	}
}
