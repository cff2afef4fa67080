package worldtest_test

import (
	"testing"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
)

// BenchmarkRecalledChild is what a depth-first search did for a new child
// of a state (merged, 4 threads, the memo warm from a whole search): copy
// the state, take a recalled step, list the runnable threads.
// BenchmarkTakenChild is what it does now that it has peeked at the
// child: make it from the peek's note, list the runnable threads.
// BenchmarkPeek is what it does for every child: peek at its word.
func BenchmarkRecalledChild(b *testing.B) {
	parents, threads := warmStates(b)
	c := model.New(parents[0].Program())
	var buf []sched.ThreadID
	i := 0
	for b.Loop() {
		c.CopyFrom(parents[i])
		c.Step(threads[i])
		buf, _ = c.AppendRunnable(buf[:0])
		if i++; i == len(parents) {
			i = 0
		}
	}
}

func BenchmarkTakenChild(b *testing.B) {
	parents, threads := warmStates(b)
	notes := make([]sched.PeekNote, len(parents))
	for i, w := range parents {
		_, notes[i], _, _ = w.PeekWord(threads[i])
	}
	c := model.New(parents[0].Program())
	var buf []sched.ThreadID
	i := 0
	for b.Loop() {
		c.TakePeeked(parents[i], threads[i], notes[i])
		buf, _ = c.AppendRunnable(buf[:0])
		if i++; i == len(parents) {
			i = 0
		}
	}
}

func BenchmarkPeek(b *testing.B) {
	parents, threads := warmStates(b)
	i := 0
	for b.Loop() {
		parents[i].PeekWord(threads[i])
		if i++; i == len(parents) {
			i = 0
		}
	}
}

// warmStates are stale worlds met on seeded walks of merged with 4
// threads, each with a GPU thread whose step the memo holds, after a
// search has filled the memo.
func warmStates(b *testing.B) ([]*model.World, []int) {
	prog := program(b, build(b, scenario.Shape{Threads: 4, Blocks: 1, Calls: 1, Modules: 1, Names: 1}), swap.Merged, model.GIL)
	sched.DFS{}.Run(check.NewSystem(prog), sched.Limits{})
	var parents []*model.World
	var threads []int
	for seed := range uint64(200) {
		w := model.New(prog)
		walk(w, sched.NewSeeded(seed), func(w *model.World) {
			w.AppendCompactKey(nil)
			if !w.StaleForTest() {
				return
			}
			r, _ := w.AppendRunnable(nil)
			for _, t := range r {
				if int(t) != model.Host && w.RecallsForTest(int(t)) {
					c := model.New(prog)
					c.CopyFrom(w)
					parents, threads = append(parents, c), append(threads, int(t))
					break
				}
			}
		})
	}
	if len(parents) == 0 {
		b.Fatal("no stale state with a recalled step")
	}
	return parents, threads
}
