package worldtest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/swap"
)

// TestDefaultdictMissRace forces the race of gh-142495 on
// refcount-unregistered's "lock = _globals_locks[gid]": GPU threads 1 and 2
// both look the module's lock up before either stores one. Then thread 1
// takes its lock, and the question is whether thread 2 can take its own at
// the same time. Only free-threaded builds before the fix let it: there
// __missing__'s plain store overwrites thread 1's lock with a second one.
// Under the GIL the lookup and the store are one step, so thread 2's
// lookup finds thread 1's lock; with the fix the store is a setdefault that
// hands thread 2 thread 1's lock. In gil-breaker thread 2 cannot even
// look up between thread 1's lookup and its "with lock:": no eval-breaker
// check falls between them (nor up to line 27's items() call), so thread
// 1 keeps the GIL.
func TestDefaultdictMissRace(t *testing.T) {
	const fetch = "lock = _globals_locks[gid]"
	sc := parse(t, `threads 2
module kernels cuda
module helpers cuda
device f in helpers: use cuda.local
kernel: call f`)
	tests := []struct {
		a model.Atomicity
		// twoLocks: thread 2 can take its lock while thread 1 holds its own.
		twoLocks bool
	}{
		{model.GIL, false},
		{model.FreeThreaded, false},
		{model.FreeThreadedOverwrite, true},
		{model.GILBreaker, false},
	}
	var modes []model.Atomicity
	for _, tt := range tests {
		modes = append(modes, tt.a)
	}
	require.Equal(t, model.Atomicities(), modes, "one case per atomicity mode")

	for _, tt := range tests {
		t.Run(tt.a.String(), func(t *testing.T) {
			w := model.New(program(t, sc, swap.RefcountUnregistered, tt.a))
			w.Trace = true
			for !w.Started(2) {
				w.Step(model.Host)
			}
			// stepTo runs thread th up to and including its next step on
			// line text, and returns that step's effects.
			stepTo := func(th int, text string) []string {
				for range 100 {
					require.Equal(t, sched.Runnable, w.Status(th), "thread %d before %q", th, text)
					ev := w.Step(th)
					if ev.Text == text {
						return slices.Clone(ev.Effects)
					}
				}
				require.FailNow(t, "no step on the line", "thread %d, %q", th, text)
				return nil
			}
			split := func(effects []string) bool {
				return slices.Contains(effects, "miss: __missing__ runs next step")
			}

			if tt.a.BreakerOnly() {
				stepTo(1, fetch)
				require.Equal(t, sched.Blocked, w.Status(2), "thread 2 while thread 1 keeps the GIL")
				stepTo(1, "with lock:")
				require.Equal(t, sched.Blocked, w.Status(2), "thread 2 while thread 1 keeps the GIL")
				// then the items() call of line 27 checks
				stepTo(1, "if _swap_refcount[gid] == 0:")
				require.Equal(t, sched.Runnable, w.Status(2), "thread 2 once thread 1 reached a check")
				return
			}
			first1, first2 := stepTo(1, fetch), stepTo(2, fetch)
			require.Contains(t, first1, "_globals_locks[helpers] is missing")
			require.Equal(t, tt.a.NoGIL(), split(first1), "thread 1's lookup: %q", first1)
			if !split(first1) {
				// The GIL: thread 1's miss stored its lock at once.
				require.Contains(t, strings.Join(first2, "; "), "_globals_locks[helpers] is lock#")
			} else {
				require.True(t, split(first2), "thread 2's lookup: %q", first2)
				second1, second2 := stepTo(1, fetch), stepTo(2, fetch)
				require.Contains(t, strings.Join(second1, "; "), "threading.Lock() makes lock#")
				made := strings.Contains(strings.Join(second2, "; "), "threading.Lock() makes lock#")
				require.Equal(t, tt.twoLocks, made, "thread 2's __missing__: %q", second2)
			}
			stepTo(1, "with lock:")
			require.Equal(t, tt.twoLocks, w.Status(2) == sched.Runnable,
				"thread 2 at its with lock: %s while thread 1 holds its lock", w.Status(2))
		})
	}
}
