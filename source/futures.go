package source

import (
	"bytes"
	"slices"

	"swapcheck/pyvm"
	"swapcheck/sched"
)

// Futures: what a thread of a reduced world (transactions.go) may still
// touch, for sched.POR's persistent sets (sched.Futures; the rules and
// their soundness are POR's doc). A step here is a transaction, and two
// transactions of different threads depend on each other when they touch
// one object (any access, read or write, to any part of it: coarser than
// pyvm's Access.Conflicts, never finer).
//
// What thread p's next step touches is found by running it on a copy
// (the trial Status makes, which the step then takes): every lock it
// holds, acquires or releases, every object another thread can reach
// that an instruction read or wrote as a non-mover (pyvm's Accesses, but
// the Const ones: locations no code writes after the set-up), and the
// module globals a use of cuda read. A lock-protected access (a mover,
// transactions.go) is left out: every access that conflicts with it
// holds a lock it holds (or the lockset check breaks and the search is
// run again without that mover), so the lock stands for it. A write of
// a registry's shape is left out too: under "Registries as sets"
// (transactions.go) it commutes with every access another thread can
// make, and an access that would not is a break. A host's
// next step touches everything, but a thread's start, which touches
// nothing but the thread it starts.
//
// What thread q may touch from now on is every object reachable from
// what it holds and will run (pyvm.State.Reach): its running task's
// frames, the context managers of its with statements, and, for every
// statement of the simulator's code still ahead of it, what that
// statement hands the file's code: a device call's swap function, the
// device function (whose module's globals it leads to) and the fakes; a
// use's module globals. A file's globals are followed only at the names
// the code still to run can name: a thread past its swap's registration
// block, which loads _locks_register_lock and _globals_locks, and with
// no later call, reaches neither. An object another thread hands q later
// is one that thread reaches now, so that thread conflicts first (POR's
// closure takes it in, and then q through it).
//
// Where q cannot go on while the frozen threads stay put, its future is
// cut: a GPU thread not started while its host is frozen; a host whose
// next wait for a block (BlockManager.run's loop) waits for a frozen
// thread that has not ended nor reached the barrier (only the host's
// starts, which touch only the started thread, can come before it),
// where no kernel raises: then a thread dies only by an exception the
// checks fail, which ends the execution, so the wait goes on only once
// every thread has ended or waits at the barrier. A host's future is
// otherwise everything.
//
// The enablers of a blocked thread: its host, for a GPU thread not
// started or waiting at the barrier; for the host waiting for its
// block, one thread of the block that has not ended nor reached the
// barrier (where a kernel raises, every such thread: any may die); for
// a lock's acquire, every thread whose future reaches that lock (the
// only ones that can release it), the host among them.
//
// Ties (AppendCanonicalTies): two GPU threads of one block at one place
// of the simulator's code, holding no lock, whose own objects are alike
// and point at the same objects of others' (pyvm.State.AppendThreadKey),
// are exchanged by a renaming that leaves the state as it is: POR tries
// one of them as a seed and makes one of their children, whose key the
// other's would share (sched.TiedChildren): each other child would cost
// a transaction's trial and a heap walk only to be matched.
//
// Where it applies: a reduced world (no faults, not gil-breaker, no loop
// that comes back to a state: the world is acyclic, which POR's
// proviso-free search needs) with one host; elsewhere every thread
// conflicts with every other, and POR is the states search.

// futures is one state's memo: worked out once each, for the state
// sched.POR hands it with (UseFuturesScratch).
type futures struct {
	of *World
	// step[p]: the objects p's next step touches (all: everything);
	// stepMade[p]: worked out
	step     [][]int32
	stepAll  []bool
	stepMade []bool
	// reach[q]: the objects q may touch from now on; start[k]: those a
	// thread not started that runs kernel code k may
	reach map[int][]bool
	start map[int16][]bool
}

// porOn reports whether p's threads have futures (see above).
func (p *Program) porOn() bool { return p.tx != nil && p.porWorld() }

// porWorld reports whether p's world, reduced, takes persistent sets:
// one host, and no test has turned them off.
func (p *Program) porWorld() bool { return p.hosts == 1 && !p.noPOR }

// NewFuturesScratch is sched.Futures'.
func (w *World) NewFuturesScratch() any { return &futures{} }

// UseFuturesScratch is sched.Futures'.
func (w *World) UseFuturesScratch(x any) {
	f := x.(*futures)
	n := len(w.th)
	*f = futures{of: w, step: slices.Grow(f.step[:0], n)[:n], stepAll: slices.Grow(f.stepAll[:0], n)[:n],
		stepMade: slices.Grow(f.stepMade[:0], n)[:n], reach: f.reach, start: f.start}
	clear(f.stepMade)
	if f.reach == nil {
		f.reach, f.start = map[int][]bool{}, map[int16][]bool{}
	}
	clear(f.reach)
	clear(f.start)
	w.fut = f
}

// memo is the state's futures scratch (one of its own when POR handed it
// none).
func (w *World) memo() *futures {
	if w.fut == nil || w.fut.of != w {
		w.UseFuturesScratch(w.NewFuturesScratch())
	}
	return w.fut
}

// Acyclic is sched.Futures': a reduced world has no loop that can come
// back to a state (Program.Reduced refuses one), and its simulator's
// code none either.
func (w *World) Acyclic() bool { return w.p.porOn() }

// AppendCanonicalOrder is sched.CanonicalOrderer's: the order the key
// writes the threads in.
func (w *World) AppendCanonicalOrder(buf []sched.ThreadID) []sched.ThreadID {
	w.force()
	for _, t := range w.order()[:w.p.hosts+w.p.gpus] {
		buf = append(buf, sched.ThreadID(t))
	}
	return buf
}

// MayConflict is sched.Futures'.
func (w *World) MayConflict(ps, qs sched.ThreadID, frozen []bool) bool {
	w.force()
	p, q := int(ps), int(qs)
	if !w.p.porOn() {
		return true
	}
	f := w.memo()
	objs, all := f.nextStep(p)
	if w.p.isHost(q) {
		return !w.hostCut(q, frozen)
	}
	if w.finished(q) {
		return false
	}
	if w.p.nextOnly {
		return w.nextConflicts(p, q)
	}
	if w.th[q].frames == nil && frozen[0] {
		return false // not started, and its host frozen
	}
	if all {
		return true
	}
	reach := f.future(q)
	for _, x := range objs {
		if int(x) < len(reach) && reach[x] {
			return true
		}
	}
	return false
}

// AppendEnablers is sched.Futures'.
func (w *World) AppendEnablers(qs sched.ThreadID, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	w.force()
	q := int(qs)
	th := &w.th[q]
	switch {
	case !w.p.porOn():
	case !w.p.isHost(q) && (th.frames == nil || th.atBarrier && !th.released):
		return append(buf, 0)
	case w.p.isHost(q) && th.frames == nil && w.s.Status(q) != pyvm.Running && w.p.host[q][th.host].kind == hJoin:
		// every thread of the block must end or reach the barrier, so
		// one that has not is an enabler; where a kernel raises, any
		// of them may die instead, which lets the wait go on too
		op := w.p.host[q][th.host]
		for _, t := range w.order() {
			if !w.p.isHost(t) && w.inBlock(t, op) && !w.th[t].done && !w.th[t].atBarrier {
				buf = append(buf, sched.ThreadID(t))
				if w.p.tx.noRaise {
					return buf
				}
			}
		}
		if len(buf) > 0 {
			return buf
		}
	default:
		if lock, ok := w.blockedOn(q); ok {
			f := w.memo()
			for t := range w.p.hosts + w.p.gpus {
				if t == q || w.finished(t) {
					continue
				}
				if w.p.isHost(t) {
					if !w.hostCut(t, frozen) {
						buf = append(buf, sched.ThreadID(t))
					}
					continue
				}
				if reach := f.future(t); int(lock) < len(reach) && reach[lock] {
					buf = append(buf, sched.ThreadID(t))
				}
			}
			return buf
		}
	}
	for t := range w.p.NumThreads() {
		if t != q {
			buf = append(buf, sched.ThreadID(t))
		}
	}
	return buf
}

// inBlock reports whether GPU thread t is of op's launch and block.
func (w *World) inBlock(t int, op hostOp) bool {
	sc := w.p.Scenario
	first := w.p.gpuThread(op.launch, op.block, 0)
	return t >= first && t < first+sc.Threads
}

// hostCut reports whether host h cannot touch anything while the frozen
// threads stay put: it has ended, or only starts come before a wait for
// its block that waits for a frozen thread.
func (w *World) hostCut(h int, frozen []bool) bool {
	th := &w.th[h]
	if th.frames != nil || w.s.Status(h) == pyvm.Running {
		return false
	}
	for _, op := range w.p.host[h][th.host:] {
		switch op.kind {
		case hStart:
			continue
		case hJoin:
			// where a kernel raises, another thread of the block may
			// die and let the wait go on: no cut
			for t := range w.p.NumThreads() {
				if w.p.tx.noRaise && frozen[t] && !w.p.isHost(t) && w.inBlock(t, op) && !w.th[t].done && !w.th[t].atBarrier {
					return true
				}
			}
		}
		return false
	}
	return true
}

// nextStep is what p's next step touches (see above).
func (f *futures) nextStep(p int) ([]int32, bool) {
	if f.stepMade[p] {
		return f.step[p], f.stepAll[p]
	}
	w := f.of
	f.stepMade[p] = true
	f.step[p], f.stepAll[p] = nil, true
	if w.p.isHost(p) {
		th := &w.th[p]
		if th.frames == nil && w.s.Status(p) != pyvm.Running && th.host < len(w.p.host[p]) && w.p.host[p][th.host].kind == hStart {
			f.stepAll[p] = false
		}
		return f.step[p], f.stepAll[p]
	}
	tr, _ := w.try(p)
	f.step[p], f.stepAll[p] = tr.touched, false
	return f.step[p], false
}

// blockedOn is the lock thread t's next step waits for, if it is one.
func (w *World) blockedOn(t int) (int32, bool) {
	tr, blocked := w.try(t)
	if !blocked || len(tr.touched) == 0 {
		return 0, false
	}
	x := tr.touched[len(tr.touched)-1]
	return x, w.s.IsLock(pyvm.Value{K: pyvm.KindRef, X: x})
}

// future is what GPU thread q may touch from now on (started or not).
func (f *futures) future(q int) []bool {
	if f.of.th[q].frames == nil {
		return f.startReach(f.of.p.kernelOf(q))
	}
	return f.threadReach(q)
}

// threadReach is what started GPU thread q may touch from now on.
func (f *futures) threadReach(q int) []bool {
	if r, ok := f.reach[q]; ok {
		return r
	}
	w := f.of
	th := &w.th[q]
	roots := []pyvm.Value{th.cm, th.exc}
	for i, fr := range th.frames {
		roots = append(roots, fr.cm)
		pc := int(fr.pc)
		if fr.phase != phNone || i < len(th.frames)-1 {
			pc++ // the statement runs already: its task and its cm are roots
		}
		roots = append(roots, w.p.stmtRoots(fr.code, pc)...)
	}
	r := w.s.Reach(nil, q, roots...)
	f.reach[q] = r
	return r
}

// startReach is what a thread not started that runs kernel code k may
// touch.
func (f *futures) startReach(k int16) []bool {
	if r, ok := f.start[k]; ok {
		return r
	}
	r := f.of.s.Reach(nil, -1, f.of.p.stmtRoots(k, 0)...)
	f.start[k] = r
	return r
}

// stmtRoots is what the statements of code c from statement pc on hand
// the file's code (see above), the calls' callees' too: worked out once
// for every code and statement (futureRoots) when the Program is
// reduced, since every state asks it of every thread.
func (p *Program) stmtRoots(c int16, pc int) []pyvm.Value {
	return p.roots[c][min(pc, len(p.roots[c])-1)]
}

// futureRoots is stmtRoots' table: for each code, for each statement
// and one past the last.
func (p *Program) futureRoots() [][][]pyvm.Value {
	t := make([][][]pyvm.Value, len(p.codes))
	for c := range p.codes {
		t[c] = make([][]pyvm.Value, len(p.codes[c].stmts)+1)
		for pc := range t[c] {
			t[c][pc] = p.rootsFrom(int16(c), pc)
		}
	}
	return t
}

// rootsFrom works out stmtRoots(c, pc).
func (p *Program) rootsFrom(c int16, pc int) []pyvm.Value {
	var out []pyvm.Value
	var walk func(c int16, pc int)
	seen := map[int16]bool{}
	walk = func(c int16, pc int) {
		cd := &p.codes[c]
		for _, st := range cd.stmts[min(pc, len(cd.stmts)):] {
			switch {
			case st.call:
				fn := p.kernel
				if st.fn >= 0 {
					fn = p.funcs[st.fn]
				}
				out = append(out, p.swap, fn)
				out = append(out, p.fakes...)
				if !seen[st.callee] {
					seen[st.callee] = true
					walk(st.callee, 0)
				}
			case !st.raise:
				out = append(out, p.globals[cd.module])
			}
		}
	}
	walk(c, pc)
	return out
}

// nextConflicts is the broken futures' MayConflict (Program.nextOnly):
// whether q's next step, where it can run, touches what p's does.
func (w *World) nextConflicts(p, q int) bool {
	a, all := w.memo().nextStep(p)
	if all || w.Status(sched.ThreadID(q)) != sched.Runnable {
		return all
	}
	b, _ := w.memo().nextStep(q)
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// AppendCanonicalTies is sched.CanonicalTies': two neighbours of the
// canonical order are tied when they are GPU threads of one block that
// run one kernel, stand at one place of the simulator's code, hold no
// lock, and hold objects of their own that are alike and point at the
// same objects of others' (pyvm.State.AppendThreadKey): exchanging them
// leaves the state as it is, up to renumbering its objects.
func (w *World) AppendCanonicalTies(order []sched.ThreadID, buf []bool) []bool {
	w.force()
	var prev []byte
	for i, ts := range order {
		t := int(ts)
		if !w.p.porOn() || w.p.isHost(t) || w.th[t].held != 0 {
			buf, prev = append(buf, false), nil
			continue
		}
		th := &w.th[t]
		roots := []pyvm.Value{th.cm, th.exc}
		for _, f := range th.frames {
			roots = append(roots, f.cm)
		}
		sig := w.s.AppendThreadKey(w.appendPlace(nil, t), t, roots...)
		u := -1
		if i > 0 {
			u = int(order[i-1])
		}
		tied := prev != nil && u >= 0 && w.p.kernelOf(t) == w.p.kernelOf(u) && w.sameBlock(t, u) && bytes.Equal(sig, prev)
		buf, prev = append(buf, tied), sig
	}
	return buf
}

// sameBlock reports whether GPU threads t and u are of one launch's
// block.
func (w *World) sameBlock(t, u int) bool {
	n := w.p.Scenario.Threads
	return (t-w.p.hosts)/n == (u-w.p.hosts)/n
}

// SkipTiedChildren is sched.TiedChildren's: a tied thread's child is
// keyed as its neighbour's (AppendCanonicalTies).
func (w *World) SkipTiedChildren() bool { return true }
