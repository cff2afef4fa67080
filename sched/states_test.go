package sched_test

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// States is checked on toy programs whose threads all run the same code:
// its canonical keys, which sort the threads, must give the verdicts of the
// stateless reference and the counterexamples of DFS, with fewer states.

// symToy is a toy whose threads all run the same program, so that
// renaming threads maps states to states with the same future.
type symToy struct{ *toySystem }

func (y symToy) Clone() sched.System {
	return symToy{y.toySystem.Clone().(*toySystem)}
}

func (y symToy) CopyFrom(src sched.System) { y.toySystem.CopyFrom(src.(symToy).toySystem) }

// firstHeld is, per thread, the lowest lock it holds plus one, 0 for none.
func (y symToy) firstHeld() []int32 {
	held := make([]int32, len(y.p.Threads))
	for l := y.p.Locks - 1; l >= 0; l-- {
		if o := *y.owner(l); o != 0 {
			held[o-1] = int32(l + 1)
		}
	}
	return held
}

// order appends the threads sorted by (pc, local, lowest lock held).
func (y symToy) order(buf []sched.ThreadID, held []int32) []sched.ThreadID {
	start := len(buf)
	for t := range sched.ThreadID(len(y.p.Threads)) {
		buf = append(buf, t)
	}
	slices.SortStableFunc(buf[start:], func(t, u sched.ThreadID) int {
		return cmp.Or(cmp.Compare(*y.pc(t), *y.pc(u)), cmp.Compare(*y.local(t), *y.local(u)), cmp.Compare(held[t], held[u]))
	})
	return buf
}

// AppendCanonicalKey sorts the threads by (pc, local, lowest lock held)
// and renames the lock owners to match.
func (y symToy) AppendCanonicalKey(b []byte) []byte {
	n := len(y.p.Threads)
	order := y.order(nil, y.firstHeld())
	pos := make([]int32, n)
	for i, t := range order {
		pos[t] = int32(i)
	}
	put := func(v int32) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	for _, t := range order {
		put(*y.pc(t))
		put(*y.local(t))
	}
	for r := range y.p.Regs {
		put(*y.reg(r))
	}
	for l := range y.p.Locks {
		o := *y.owner(l)
		if o != 0 {
			o = pos[o-1] + 1
		}
		put(o)
	}
	return b
}

// genSymProgram draws one thread's program (as genProgram does) and runs it
// on 2 to 4 threads, cut to 10 ops in all so that the reference stays fast.
func genSymProgram(t *rapid.T) *program {
	p := genProgram(t)
	copies := rapid.IntRange(2, 4).Draw(t, "copies")
	ops := p.Threads[0][:min(len(p.Threads[0]), 10/copies)]
	p.Threads = nil
	for range copies {
		p.Threads = append(p.Threads, ops)
	}
	return p
}

// compareWithDFS describes the first way States on the symmetric toy
// disagrees with the reference or with DFS, or returns "".
func compareWithDFS(p *program) string {
	_, ref := reference(newToy(p), false)
	dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
	st := sched.States{}.Run(symToy{newToy(p)}, sched.Limits{})
	switch {
	case st.Verdict != dfs.Verdict:
		return fmt.Sprintf("states: %s, dfs: %s (the reference found %v)", st.Verdict, dfs.Verdict, sorted(ref.kinds))
	case st.Verdict == sched.Violation && !ref.kinds[st.Failure.Kind]:
		return fmt.Sprintf("states found %s, which the reference never reaches", st.Failure.Kind)
	case st.Verdict == sched.Violation && st.Failure.Kind != dfs.Failure.Kind:
		return fmt.Sprintf("states found %s, dfs %s", st.Failure.Kind, dfs.Failure.Kind)
	case !slices.Equal(st.Schedule, dfs.Schedule):
		return fmt.Sprintf("states found %v, dfs %v", st.Schedule, dfs.Schedule)
	case st.Stats.States > dfs.Stats.States:
		return fmt.Sprintf("states stored %d states, dfs %d", st.Stats.States, dfs.Stats.States)
	}
	return ""
}

func TestStatesAgreesWithDFS(t *testing.T) {
	var fewer int
	rapid.Check(t, func(t *rapid.T) {
		p := genSymProgram(t)
		if d := compareWithDFS(p); d != "" {
			t.Fatalf("%s: %s", p, d)
		}
		dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
		st := sched.States{}.Run(symToy{newToy(p)}, sched.Limits{})
		if st.Stats.States < dfs.Stats.States {
			fewer++
		}
		if st.Verdict == sched.Violation {
			requireReplays(t, p, "states", st)
		}
	})
	t.Logf("%d programs with fewer states than dfs", fewer)
}

// Without a canonical key, States is DFS: the same verdict, counterexample
// and counts.
func TestStatesWithoutCanonicalIsDFS(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t)
		dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
		st := sched.States{}.Run(newToy(p), sched.Limits{})
		require.Equal(t, dfs.Verdict, st.Verdict)
		require.Equal(t, dfs.Failure, st.Failure)
		require.Equal(t, dfs.Schedule, st.Schedule)
		st.Stats.MemoryBytes = dfs.Stats.MemoryBytes
		require.Equal(t, dfs.Stats, st.Stats)
	})
}

// States on the symmetric toy: n threads each taking a lock around an
// increment store far fewer states than DFS, and its visited set's memory
// is reported.
func TestStatesReduces(t *testing.T) {
	p := toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0", "a0 r0 w0+1 u0", "a0 r0 w0+1 u0")
	dfs := sched.DFS{}.Run(newToy(p), sched.Limits{})
	st := sched.States{}.Run(symToy{newToy(p)}, sched.Limits{})
	require.Equal(t, sched.Verified, dfs.Verdict)
	require.Equal(t, sched.Verified, st.Verdict)
	require.True(t, st.Complete)
	require.Less(t, st.Stats.States, dfs.Stats.States)
	require.Positive(t, st.Stats.MemoryBytes)
	t.Logf("dfs %d states, states %d", dfs.Stats.States, st.Stats.States)
}

func TestStatesLimits(t *testing.T) {
	p := toy("a0 r0 w0+1 u0", "a0 r0 w0+1 u0", "a0 r0 w0+1 u0")
	s := symToy{newToy(p)}
	res := sched.States{}.Run(s, sched.Limits{MaxDepth: 3})
	require.Equal(t, sched.Incomplete, res.Verdict)
	require.Contains(t, res.Cut, "step budget of 3")
	res = sched.States{}.Run(s, sched.Limits{MaxExecutions: 2})
	require.Equal(t, sched.Incomplete, res.Verdict)
	require.Contains(t, res.Cut, "max-executions 2")
}
