package sched_test

import (
	"fmt"

	"swapcheck/sched"
)

// The toy systems' futures, for POR: a thread's future is the rest of its
// program, cut at an acquire of a lock a frozen thread holds (only its
// owner releases a lock).

// opFootprint is the footprint of op o of thread t in y, as Footprint
// gives it when o is t's next op.
func (y *toySystem) opFootprint(o op) sched.Footprint {
	switch o.Kind {
	case opRead, opAssert:
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Read}
	case opWrite:
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Write}
	case opAcquire:
		return sched.Footprint{Object: 1 + y.p.Regs + o.L, Access: sched.Write, MayBlock: true}
	case opRelease:
		return sched.Footprint{Object: 1 + y.p.Regs + o.L, Access: sched.Write}
	}
	panic(fmt.Sprintf("toy: no footprint for %s", o))
}

// future calls see with the footprint of each op thread q may still run
// while the frozen threads take no step, until see returns true; it
// reports whether one did.
func (y *toySystem) future(q sched.ThreadID, frozen []bool, fp func(op) sched.Footprint, see func(sched.Footprint) bool) bool {
	for _, o := range y.p.Threads[q][*y.pc(q):] {
		if o.Kind == opAcquire {
			if owner := *y.owner(o.L); owner != 0 && frozen[owner-1] {
				return false
			}
		}
		if see(fp(o)) {
			return true
		}
	}
	return false
}

// MayConflict implements sched.Futures.
func (y *toySystem) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	next := y.Footprint(p)
	return y.future(q, frozen, y.opFootprint, next.Dependent)
}

// NewFuturesScratch implements sched.Futures: a toy's futures need no
// scratch.
func (y *toySystem) NewFuturesScratch() any { return nil }

// UseFuturesScratch implements sched.Futures.
func (y *toySystem) UseFuturesScratch(any) {}

// AppendEnablers implements sched.Futures: only the owner of the lock a
// blocked acquire waits for can release it.
func (y *toySystem) AppendEnablers(q sched.ThreadID, _ []bool, buf []sched.ThreadID) []sched.ThreadID {
	o, _ := y.next(q)
	if o.Kind != opAcquire {
		panic(fmt.Sprintf("toy: thread %d is blocked at %s", q, o))
	}
	return append(buf, sched.ThreadID(*y.owner(o.L)-1))
}

// opFootprint is toySystem's, with awaits, joins and members' groups.
func (y *blockingSystem) opFootprint(t sched.ThreadID) func(op) sched.Footprint {
	return func(o op) sched.Footprint {
		var fp sched.Footprint
		switch o.Kind {
		case opAwait:
			fp = sched.Footprint{Object: 1 + o.Reg, Access: sched.Read, MayBlock: true}
		case opJoin:
			fp = sched.Footprint{Access: sched.Local, Group: 1, Watches: true, MayBlock: true}
		default:
			fp = y.toySystem.opFootprint(o)
		}
		if y.bp.members[t] {
			fp.Group = 1
		}
		return fp
	}
}

// MayConflict implements sched.Futures.
func (y *blockingSystem) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	next := y.Footprint(p)
	return y.future(q, frozen, y.opFootprint(q), next.Dependent)
}

// AppendEnablers implements sched.Futures: a join waits for every member
// to be done, so any one member not done yet (a frozen one if there is
// one) must step; an await waits for a write of its register.
func (y *blockingSystem) AppendEnablers(q sched.ThreadID, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	o, _ := y.next(q)
	switch o.Kind {
	case opJoin:
		pick := sched.ThreadID(-1)
		for m, member := range y.bp.members {
			if member && y.Status(sched.ThreadID(m)) != sched.Done && (pick < 0 || frozen[m]) {
				pick = sched.ThreadID(m)
			}
		}
		return append(buf, pick)
	case opAwait:
		for r := range sched.ThreadID(len(y.p.Threads)) {
			writes := func(fp sched.Footprint) bool { return fp.Object == 1+o.Reg && fp.Access == sched.Write }
			if r != q && y.future(r, frozen, y.opFootprint(r), writes) {
				buf = append(buf, r)
			}
		}
		return buf
	}
	return y.toySystem.AppendEnablers(q, frozen, buf)
}

// MayConflict implements sched.Futures for the recorder's system, or says
// every thread conflicts when it has none.
func (r *recorder) MayConflict(p, q sched.ThreadID, frozen []bool) bool {
	if f, ok := r.System.(sched.Futures); ok {
		return f.MayConflict(p, q, frozen)
	}
	return true
}

// NewFuturesScratch implements sched.Futures for the recorder's system.
func (r *recorder) NewFuturesScratch() any {
	if f, ok := r.System.(sched.Futures); ok {
		return f.NewFuturesScratch()
	}
	return nil
}

// UseFuturesScratch implements sched.Futures for the recorder's system.
func (r *recorder) UseFuturesScratch(x any) {
	if f, ok := r.System.(sched.Futures); ok {
		f.UseFuturesScratch(x)
	}
}

// AppendEnablers implements sched.Futures for the recorder's system, or
// names every other thread when it has none.
func (r *recorder) AppendEnablers(q sched.ThreadID, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	if f, ok := r.System.(sched.Futures); ok {
		return f.AppendEnablers(q, frozen, buf)
	}
	for t := range sched.ThreadID(r.NumThreads()) {
		if t != q {
			buf = append(buf, t)
		}
	}
	return buf
}
