package sched_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/sched"
)

// The toy system blocks only on locks. DPOR's handling of blocked threads
// is also checked on two other ways to block, the model's: a condition
// wait, which any write of its register can enable or disable, and a join
// that waits for a group of threads to end, declared as the model's
// host declares its poll of a block (a watcher of the members' group).

const (
	// opAwait blocks until r[Reg] == V; text "eR=V".
	opAwait opKind = 100 + iota
	// opJoin blocks until every member thread is done; text "j".
	opJoin
)

// blockingProgram is a toy program with awaits and joins.
type blockingProgram struct {
	*program
	members []bool // the threads a join waits for
}

func (p *blockingProgram) String() string {
	var b strings.Builder
	p.writeThreads(&b, func(i int) string {
		if p.members[i] {
			return "member "
		}
		return ""
	})
	if p.FinalCheck {
		fmt.Fprintf(&b, " (final fails if r%d == %d)", p.FinalReg, p.FinalV)
	}
	return b.String()
}

// blockingSystem runs a blockingProgram: the toy system, with awaits and
// joins, and every step of a member thread a member's step of group 1.
type blockingSystem struct {
	*toySystem
	bp *blockingProgram
}

func newBlocking(p *blockingProgram) *blockingSystem {
	return &blockingSystem{toySystem: newToy(p.program), bp: p}
}

func (y *blockingSystem) Status(t sched.ThreadID) sched.Status {
	o, ok := y.next(t)
	switch {
	case ok && o.Kind == opAwait:
		if *y.reg(o.Reg) != int32(o.V) {
			return sched.Blocked
		}
		return sched.Runnable
	case ok && o.Kind == opJoin:
		for m, member := range y.bp.members {
			if member && y.toySystem.Status(sched.ThreadID(m)) != sched.Done {
				return sched.Blocked
			}
		}
		return sched.Runnable
	}
	return y.toySystem.Status(t)
}

func (y *blockingSystem) Footprint(t sched.ThreadID) sched.Footprint {
	o, _ := y.next(t)
	var fp sched.Footprint
	switch o.Kind {
	case opAwait:
		fp = sched.Footprint{Object: 1 + o.Reg, Access: sched.Read, MayBlock: true}
	case opJoin:
		fp = sched.Footprint{Access: sched.Local, Group: 1, Watches: true, MayBlock: true}
	default:
		fp = y.toySystem.Footprint(t)
	}
	if y.bp.members[t] {
		fp.Group = 1
	}
	return fp
}

func (y *blockingSystem) Step(t sched.ThreadID) *sched.Failure {
	o, _ := y.next(t)
	if o.Kind != opAwait && o.Kind != opJoin {
		return y.toySystem.Step(t)
	}
	if y.Status(t) != sched.Runnable {
		panic(fmt.Sprintf("blocking toy: step of thread %d, which is %s", t, y.Status(t)))
	}
	*y.pc(t)++
	return nil
}

func (y *blockingSystem) Clone() sched.System {
	return &blockingSystem{toySystem: y.toySystem.Clone().(*toySystem), bp: y.bp}
}

func (y *blockingSystem) CopyFrom(src sched.System) {
	y.toySystem.CopyFrom(src.(*blockingSystem).toySystem)
}

// genBlockingProgram draws 2-4 threads of up to 5 ops each (12 in all)
// over 2 registers and a lock, with awaits of values the writes can make
// and, in threads that are not members, joins.
func genBlockingProgram(t *rapid.T) *blockingProgram {
	var members []bool
	p := genOps(t, recipe{regs: 2, locks: 1, fewest: 2, most: 4, maxOps: 5, budget: 12, kinds: 12, reads: 2, writes: 5,
		begin: func(t *rapid.T, th *threadDraw) { th.member = rapid.Bool().Draw(t, "member") },
		other: func(t *rapid.T, th *threadDraw, k, reg int) op {
			switch {
			case k <= 6:
				return toggleLock(th)
			case k == 7:
				return assertOp(t, reg)
			case k <= 9 || th.member:
				return op{Kind: opAwait, Reg: reg, V: rapid.IntRange(0, 3).Draw(t, "v")}
			}
			return op{Kind: opJoin}
		},
		finished: func(_ *rapid.T, th *threadDraw) { members = append(members, th.member) }})
	drawFinalCheck(t, p)
	return &blockingProgram{program: p, members: members}
}

func TestDPORBlockingAgreesWithEnumeration(t *testing.T) {
	var agreed, deadlocks int
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Custom(genBlockingProgram).Draw(t, "program")
		build := func() sched.System { return newBlocking(p) }
		require.Empty(t, dporMismatch(sched.DPOR{}, build), "program %s", p)
		require.Empty(t, dporMismatch(sched.DFS{}, build), "dfs on program %s", p)
		agreed++
		_, tol := reference(build(), true)
		if tol.kinds[sched.KindDeadlock] {
			deadlocks++
		}
	})
	t.Logf("%d programs, %d of them deadlock", agreed, deadlocks)
}

// blocking builds a program from one text per thread, as toy does, with
// awaits ("e0=2") and joins ("j"); a thread whose text starts with "m:"
// is a member.
func blocking(threads ...string) *blockingProgram {
	p := &blockingProgram{program: &program{Regs: 1, Locks: 1}}
	for _, text := range threads {
		text, member := strings.CutPrefix(text, "m:")
		var ops []op
		for _, w := range strings.Fields(text) {
			var o op
			switch w[0] {
			case 'e':
				if _, err := fmt.Sscanf(w, "e%d=%d", &o.Reg, &o.V); err != nil {
					panic(fmt.Sprintf("await %q: %v", w, err))
				}
				o.Kind = opAwait
			case 'j':
				o.Kind = opJoin
			default:
				o = parseOp(w)
			}
			p.Regs = max(p.Regs, o.Reg+1)
			p.Locks = max(p.Locks, o.L+1)
			ops = append(ops, o)
		}
		p.Threads = append(p.Threads, ops)
		p.members = append(p.members, member)
	}
	return p
}

func TestDPORBlockingPrograms(t *testing.T) {
	tests := []struct {
		name       string
		p          *blockingProgram
		executions int64
		finals     int
	}{
		// T1's await passes at the start or after T0's last write. Only
		// at the start can T1's write come before T0's write of r1 (the
		// end state with r1 = 5); DPOR gets there by walking the await
		// back through the writes that block it.
		{name: "await walks back", p: blocking("w0+1 w1+5 w0+0", "r1 e0=0 w1+1"), finals: 3},
		// Members run in any order without the join telling them apart.
		{name: "join does not order members", p: blocking("m:w0+1", "m:w1+1", "j r0 r1"), executions: 1, finals: 1},
		{name: "join after writes of a member", p: blocking("m:w0+1 w0+2", "j w0+5"), executions: 1, finals: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			build := func() sched.System { return newBlocking(tt.p) }
			require.Empty(t, dporMismatch(sched.DPOR{}, build))
			rec := newRecorder(build(), true)
			res := sched.DPOR{}.Run(rec, sched.Limits{})
			require.Equal(t, sched.Verified, res.Verdict)
			require.Len(t, rec.finals, tt.finals)
			if tt.executions > 0 {
				require.Equal(t, tt.executions, res.Stats.Executions)
			}
		})
	}
}

// Programs on which a draft of DPOR once disagreed with the enumeration;
// broken names the deliberately broken search that still does.
func TestDPORRegressions(t *testing.T) {
	tests := []struct {
		name   string
		p      *blockingProgram
		broken sched.Strategy
	}{
		// T1 acquires after T0's release; to acquire first it must pass
		// its await, which T2's write enables: the race of the release
		// with the acquire cannot be reversed, and q (T1) does not start
		// v, T2 does. Missed: T1 ends holding l0, T0 deadlocks.
		{name: "blocked acquire behind another's write", p: blocking("a0 u0", "m:e1=1 r0 r0 a0", "w1+1")},
		// T1 acquires l1 after T0's release and is never seen blocked on
		// it: only walking T1's read back ahead of the release shows it
		// blocked, racing with T0's acquire. Missed: T1 takes l1 first,
		// keeps it, and T0 deadlocks.
		{name: "blocked acquire behind own steps", p: blocking("r0 a0 a1 u1", "r0 a1"), broken: sched.DPORReversibleOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			build := func() sched.System { return newBlocking(tt.p) }
			require.Empty(t, dporMismatch(sched.DPOR{}, build))
			if tt.broken != nil {
				require.NotEmpty(t, dporMismatch(tt.broken, build))
			}
		})
	}
}
