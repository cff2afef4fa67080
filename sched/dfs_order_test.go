package sched_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// naiveDFS is a stateful depth-first search written plainly: each child is
// stepped on a clone when its turn comes (DFS steps a state's children
// together, up front; see dfsFrame), keyed by AppendKey, counted as DFS
// counts. It records the first failure and the steps that led to it.
type naiveDFS struct {
	seen     map[string]bool
	stats    sched.Stats
	failure  *sched.Failure
	schedule []sched.ThreadID
}

func (r *naiveDFS) execution(p int) {
	if r.stats.Executions == 0 || p < r.stats.PreemptionsMin {
		r.stats.PreemptionsMin = p
	}
	r.stats.PreemptionsMax = max(r.stats.PreemptionsMax, p)
	r.stats.PreemptionsSum += int64(p)
	r.stats.Executions++
}

// visit searches from s, reached by via's step with pre preemptions along
// path; it reports whether it found a failure.
func (r *naiveDFS) visit(s sched.System, via sched.ThreadID, pre int, path []sched.ThreadID) bool {
	order, _ := runnableOf(s) // increasing; the last thread first if it can run
	if i := slices.Index(order, via); i > 0 {
		copy(order[1:i+1], order[:i])
		order[0] = via
	}
	for _, t := range order {
		p := pre
		if t != via && order[0] == via {
			p++
		}
		r.stats.Steps++
		r.stats.Depth = max(r.stats.Depth, len(path)+1)
		c := s.Clone()
		at := append(path[:len(path):len(path)], t)
		if f := c.Step(t); f != nil {
			r.failure, r.schedule = f, at
			r.execution(p)
			return true
		}
		k := string(c.AppendKey(nil))
		if r.seen[k] {
			r.stats.Matched++
			r.execution(p)
			continue
		}
		r.seen[k] = true
		r.stats.States++
		if next, allDone := runnableOf(c); len(next) == 0 {
			if f := endFailure(c, allDone); f != nil {
				r.failure, r.schedule = f, at
				r.execution(p)
				return true
			}
			r.execution(p)
			continue
		}
		if r.visit(c, t, p, at) {
			return true
		}
	}
	return false
}

// DFS steps a state's children together, but its counts, its first
// counterexample and the preemptions along its paths are those of the
// plain search that steps each child in its turn, on random programs,
// whether it recycles states or clones them, whether it takes keys as
// words (where they fit) or as bytes, and whether it peeks at children's
// words (sched.WordPeeker) before it makes them, and at the last thread's
// next step early, before the runnable threads are listed, or earlier
// still, at the first child's next step when it pushes its parent
// (sched.WordPeeker's PeekAgain).
func TestDFSStepsChildrenAsInTheirTurn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t)
		if rapid.Bool().Draw(t, "locks") {
			p = genLockProgram(t)
		}
		root := newToy(p)
		if run, _ := runnableOf(root); len(run) == 0 {
			return // DFS handles this before its loop
		}
		want := naiveDFS{seen: map[string]bool{string(root.AppendKey(nil)): true}}
		want.stats.States = 1
		want.visit(root, -1, 0, nil)
		for _, mode := range []string{"cloning", "copying", "words", "peeking", "peeking early", "peeking again"} {
			rec := newRecorder(newToy(p), false)
			sys := rec.system(mode != "cloning")
			switch mode {
			case "words":
				sys = wordyRecorder{copyingRecorder{rec}}
			case "peeking", "peeking early":
				sys = peekingRecorder{wordyRecorder{copyingRecorder{rec}}}
			case "peeking again":
				sys = againRecorder{peekingRecorder{wordyRecorder{copyingRecorder{rec}}}}
			}
			restore := func() {}
			if mode == "peeking early" || mode == "peeking again" {
				restore = sched.PeekEarlyAlwaysForTest()
			}
			got := sched.DFS{}.Run(sys, sched.Limits{})
			restore()
			copying := mode
			if want.failure != nil {
				require.Equal(t, sched.Violation, got.Verdict, "copying %v", copying)
				require.Equal(t, want.failure.Kind, got.Failure.Kind, "copying %v", copying)
				require.Equal(t, want.schedule, got.Schedule, "copying %v", copying)
			} else {
				require.Equal(t, sched.Verified, got.Verdict, "copying %v", copying)
			}
			got.Stats.MemoryBytes = 0
			require.Equal(t, want.stats, got.Stats, "copying %v", copying)
		}
	})
}

// wordyRecorder is a copyingRecorder with a compact key (each slot of the
// toy's state as the uvarint of its zigzag plus one: no zero byte) that it
// also gives as a word where sched.WordKey packs it, as model.World does:
// a toy of two threads has a word key, one of three does not.
type wordyRecorder struct{ copyingRecorder }

func (w wordyRecorder) Clone() sched.System {
	return wordyRecorder{w.copyingRecorder.Clone().(copyingRecorder)}
}

func (w wordyRecorder) CopyFrom(src sched.System) {
	w.copyingRecorder.CopyFrom(src.(wordyRecorder).copyingRecorder)
}

func (w wordyRecorder) AppendCompactKey(b []byte) []byte {
	for _, v := range w.System.(*toySystem).s {
		b = binary.AppendUvarint(b, uint64(v<<1^v>>31)+1)
	}
	return b
}

func (w wordyRecorder) CompactWord() (uint64, bool) { return sched.WordKey(w.AppendCompactKey(nil)) }

// peekingRecorder is a wordyRecorder that peeks at the word of a child by
// an even thread's step (on a clone), as model.World peeks at the steps its
// memo holds, so that a search both peeks and steps; it does not peek at
// a step that fails. Asked of an even thread that cannot run (as a search
// may ask), it says ok with a word no state has, which WordPeeker allows
// and a search must not use.
type peekingRecorder struct{ wordyRecorder }

func (p peekingRecorder) Clone() sched.System {
	return peekingRecorder{p.wordyRecorder.Clone().(wordyRecorder)}
}

func (p peekingRecorder) CopyFrom(src sched.System) {
	p.wordyRecorder.CopyFrom(src.(peekingRecorder).wordyRecorder)
}

func (p peekingRecorder) PeekWord(t sched.ThreadID) (uint64, sched.PeekNote, bool) {
	if t%2 != 0 {
		return 0, sched.PeekNote{}, false
	}
	if p.Status(t) != sched.Runnable {
		return ^uint64(0), sched.PeekNote{A: uint64(t), B: ^uint64(0)}, true
	}
	c := p.wordyRecorder.Clone().(wordyRecorder)
	if c.Step(t) != nil {
		return 0, sched.PeekNote{}, false
	}
	word, ok := c.CompactWord()
	return word, sched.PeekNote{A: uint64(t), B: word}, ok
}

// TakePeeked steps a copy of parent, and checks the note is PeekWord's.
func (p peekingRecorder) TakePeeked(parent sched.System, t sched.ThreadID, note sched.PeekNote) {
	p.CopyFrom(parent)
	if p.Step(t) != nil {
		panic("a step that PeekWord saw succeed failed")
	}
	if word, _ := p.CompactWord(); note != (sched.PeekNote{A: uint64(t), B: word}) {
		panic("TakePeeked was handed another note than PeekWord's")
	}
}

// PeekAgain never tells: the search peeks at each step once its parent is
// made (againRecorder tells).
func (p peekingRecorder) PeekAgain(sched.ThreadID, sched.PeekNote) (uint64, sched.PeekNote, bool) {
	return 0, sched.PeekNote{}, false
}

// The recorders offer what the modes of TestDFSStepsChildrenAsInTheirTurn
// test.
var (
	_ sched.Compact    = wordyRecorder{}
	_ sched.WordPeeker = peekingRecorder{}
	_ sched.WordPeeker = againRecorder{}
)

// againRecorder is a peekingRecorder that also peeks two steps of one
// thread ahead (sched.WordPeeker's PeekAgain): at the word PeekWord would give of the
// child TakePeeked would make, on a clone, and with its note.
type againRecorder struct{ peekingRecorder }

func (a againRecorder) Clone() sched.System {
	return againRecorder{a.peekingRecorder.Clone().(peekingRecorder)}
}

func (a againRecorder) CopyFrom(src sched.System) {
	a.peekingRecorder.CopyFrom(src.(againRecorder).peekingRecorder)
}

func (a againRecorder) TakePeeked(parent sched.System, t sched.ThreadID, note sched.PeekNote) {
	a.peekingRecorder.TakePeeked(parent.(againRecorder).peekingRecorder, t, note)
}

func (a againRecorder) PeekAgain(t sched.ThreadID, note sched.PeekNote) (uint64, sched.PeekNote, bool) {
	c := a.Clone().(againRecorder)
	c.TakePeeked(a, t, note)
	return c.PeekWord(t)
}
