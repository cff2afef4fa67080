package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// interruptScenario is testdata/scenarios/interrupt.txt: one thread, two
// launches, faults interrupt.
func interruptScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "scenarios", "interrupt.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	return sc
}

// landAt runs w's host (and, while it waits, the lowest-numbered GPU
// thread that can run) until the host's step matches where (the first such
// step), then lands the interrupt there.
func landAt(t *testing.T, w *model.World, where func(ev *model.Event) bool) {
	t.Helper()
	sig := w.Program().Signal()
	for range 1000 {
		if w.Status(model.Host) != sched.Runnable {
			u := 1
			for ; u < sig && w.Status(u) != sched.Runnable; u++ {
			}
			require.Less(t, u, sig, "nothing can run before the landing")
			w.Step(u)
			continue
		}
		ev := w.Step(model.Host)
		if where(ev) {
			require.Equal(t, sched.Runnable, w.Status(sig), "the interrupt cannot land after %s %s", ev.Where, ev.Text)
			ev := w.Step(sig)
			require.Equal(t, model.KeyboardInterrupt, ev.Raised)
			return
		}
	}
	t.Fatal("no landing matched")
}

// runOut runs w to its end, the lowest-numbered runnable thread first, and
// returns every use of cuda that saw another value than its own launch's
// fake, as "thread saw X, not Y".
func runOut(t *testing.T, w *model.World) []string {
	t.Helper()
	var wrong []string
	for range 10000 {
		var next = -1
		for u := range w.NumThreads() {
			if w.Status(u) == sched.Runnable {
				next = u
				break
			}
		}
		if next < 0 {
			for u := range w.NumThreads() {
				require.Equal(t, sched.Done, w.Status(u), "thread %s is blocked at the end", w.Program().ThreadName(u))
			}
			return wrong
		}
		ev := w.Step(next)
		if ev.Kind == model.EvUse && ev.Saw != ev.Want {
			wrong = append(wrong, fmt.Sprintf("%s saw %s, not %s", w.Program().ThreadName(next), ev.Saw, ev.Want))
		}
	}
	t.Fatal("the run does not end")
	return nil
}

// An interrupt at each landing the fixture names (docs/cpython-switch-
// points.md, "Findings the model needs") leaves what the fixture says: the
// host's swap of the kernel's module in launch 1 is interrupted, the test
// runner catches the KeyboardInterrupt and launches again, and launch 2
// shows the harm.
func TestInterruptLandingsLeaveWhatTheFixtureSays(t *testing.T) {
	at := func(where, bytecode string) func(ev *model.Event) bool {
		return func(ev *model.Event) bool {
			return ev.Where == where && strings.Contains(ev.Bytecode, bytecode)
		}
	}
	yield := func(ev *model.Event) bool { return strings.HasPrefix(ev.Text, "yield: next() returns") }
	for _, c := range []struct {
		name, protocol string
		where          func(ev *model.Event) bool
		// wrong are the uses that see another fake; kernelsLeft what
		// kernels.cuda holds at the end; count the count entry left
		// (-1: none)
		wrong       []string
		kernelsLeft model.Value
		count       int32
	}{
		// 30: inside with lock, swapped, count 0: no finally ever
		// restores; launch 2 collects nothing, counts 1 and, leaving,
		// restores nothing and deletes the count
		{"merged 30", "merged", at("merged.py:30", "STORE_SUBSCR"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), -1},
		// 24: swapped and counted, before try: the count is stuck
		{"merged 24", "merged", at("merged.py:24", "release"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), 1},
		// after yield, in __enter__: the finally is deferred to the
		// exception's death, where the runner catches it: restored
		{"merged yield", "merged", yield, nil, model.Real, -1},
		// 43 after pop, before update: the saved names are gone for good
		// (launch 2 finds the zero count, saves nothing and deletes it)
		{"merged 43 pop", "merged", at("merged.py:43", "dict.pop"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), -1},
		// 43 after update: restored, only the zero count entry is left,
		// which launch 2 uses and deletes
		{"merged 43 update", "merged", at("merged.py:43", "dict.update"), nil, model.Real, -1},
		{"refcount-del 24", "refcount-del", at("refcount_del.py:24", "release"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), 1},
		// global-lock 28: state recorded with count 0, swapped, before try
		{"global-lock 28", "global-lock", at("global_lock.py:28", "STORE_SUBSCR"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), 0},
		// global-lock 20: leaving with _swap_state_lock, before try
		{"global-lock 20", "global-lock", at("global_lock.py:20", "release"),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), 0},
		{"global-lock yield", "global-lock", yield, nil, model.Real, -1},
		// naive 15: swapped by update(repl), not yet in try
		{"naive 15", "naive", at("naive.py:15", ""),
			[]string{"L2.B0.T0 saw fake#1, not fake#2"}, model.Fake(1), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := check.Lookup(c.protocol)
			require.NoError(t, err)
			prog, err := model.NewProgram(interruptScenario(t), p, model.GIL)
			require.NoError(t, err)
			w := model.New(prog)
			w.Trace = true
			landAt(t, w, c.where)
			require.Equal(t, c.wrong, runOut(t, w))
			require.Equal(t, c.kernelsLeft, w.GlobalValue(0, 0), "kernels.cuda at the end")
			r := w.Registry(0)
			if c.count < 0 {
				require.False(t, r.HasCount, "no count entry for kernels")
			} else {
				require.True(t, r.HasCount, "a count entry for kernels")
				require.Equal(t, c.count, r.Count)
			}
			require.Equal(t, 1, w.Faults())
		})
	}
}

// An interrupt in BlockManager.run's polling loop ends the launch without
// the abort path: the kernel's module is restored while the block's thread
// still runs, unaborted.
func TestInterruptInThePollRestoresWhileThreadsRun(t *testing.T) {
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	sc := interruptScenario(t)
	prog, err := model.NewProgram(sc, p, model.GIL)
	require.NoError(t, err)
	w := model.New(prog)
	w.Trace = true
	landAt(t, w, func(ev *model.Event) bool { return strings.HasPrefix(ev.Text, "t.start()") })
	// the landing after t.start() raises in the launch's with-body: the
	// same path as one in the polling loop
	for w.GlobalValue(0, 0) != model.Real {
		require.Equal(t, sched.Runnable, w.Status(model.Host))
		w.Step(model.Host)
	}
	require.NotEqual(t, sched.Done, w.Status(1), "the launch's thread still runs")
	ev := w.Step(1) // its use of cuda.threadIdx
	require.Equal(t, model.EvUse, ev.Kind)
	require.Equal(t, model.Real, ev.Saw, "the thread sees the module its launch restored")
}
