package model

import "swapcheck/sched"

// # Faults (the rules POR's futures add for SIGINT and RAISE)
//
// A fault is a pseudo-thread (interrupt.go, raisefault.go), and package
// sched reduces it as a thread. Its rules, under gil and the
// free-threaded modes (under gil-breaker, with faults, futures claim
// nothing and POR expands every state fully):
//
// A raise fault is a transition of the raising thread: RAISE's move arms
// it, and the next move is the fall of a thread that stands at a body
// statement (raisable), the only moves an armed state has. So a raisable
// thread t has two transitions at a state: its step, and "arm, then t
// falls", which touches t's frames and the fault count. The count is
// shared by every fault, but a fault may fall only while the count is
// under the bound and falling adds one to it, so two faults that both
// fall in some order fall in the other too, to the same count: the
// count orders nothing (the persistent-set argument needs only that a
// first step of T can be moved to the front of an execution, and that
// some step of T stays enabled along one without T's steps: a
// thread's own step does, a fault that the count disables need not).
// Hence:
//
//   - a raisable thread p of T brings RAISE into T while RAISE can arm
//     (MayConflict(p, RAISE)): its fall must be explored; and its fall,
//     which may kill it, is a loud step (the group rules): a GPU thread's
//     fall conflicts with its host's poll of its block, as its death
//     does;
//   - RAISE in T brings in every raisable thread (MayConflict(RAISE, q)):
//     the armed state is expanded fully (every pair of falls conflicts:
//     each disarms the other), so every raisable thread's fall is
//     explored, and a thread whose fall is must have its step explored
//     too. Where RAISE cannot arm, its move ends it; with the bound
//     spent that is a step that touches nothing; with faults left it is
//     not (another thread's step could make one raisable, and RAISE
//     would arm instead), so it conflicts with every thread and is taken
//     only where T is every thread;
//   - a thread may raise at every statement of a body (Program.raises:
//     no death is ruled out), and every path its exception takes is in
//     the rest of its code (the exception table's handlers, the finally
//     after the yield, the host's next statement), but past the cuts of
//     the walk: its future takes every later step as reachable once its
//     first is, and a cut before its first step holds only while RAISE
//     (and SIGINT, for host 0) is frozen too (Exceptions in
//     reduce_futures.go);
//   - a blocked raisable thread of T can fall once RAISE arms: RAISE is
//     one of its enablers.
//
// The interrupt lands in host 0 where the host stands (a landing) or
// while it polls a block. Its step writes the host's frames, the fault
// count, and ends the host's launch's threads that have not started
// (which are not runnable, and whose futures stop while their host is
// frozen); so it conflicts with host 0's steps alone, and only host 0's
// steps move it to or from a landing. Hence:
//
//   - host 0 in T brings SIGINT into T while SIGINT can land;
//   - SIGINT in T brings host 0 in; its last move, once host 0 has ended,
//     touches nothing;
//   - host 0's future walks the generator an interrupt left suspended
//     (tDeferred) too, first: the finally it runs where the exception
//     dies comes no later than the rest of the host's code;
//   - a host paused at a landing runs its window's local steps and then,
//     maybe, a shared step its pc does not name: it conflicts with every
//     thread.
//
// A raise fault that spends the last of the bound changes where host 0's
// next step ends (it stops at a landing only while an interrupt can
// land), not what it does: the steps it then runs at once are local,
// and commute with every other thread's.
//
// These rules are held by the end states POR reaches against those of
// the unreduced search, on every variant, atomicity and fault kind
// (TestPORWithFaultsKeepsEndStates, check/worldtest), and by the broken
// rules those tests catch (BreakFaultPORForTest).

// faultConflict is MayConflict's answer where a fault has a say: decided
// false leaves it to the futures. p's next step can run.
func (w *World) faultConflict(f *futures, p, q int) (conflict, decided bool) {
	pr := w.p
	if pr.signal < 0 && pr.raiser < 0 {
		return false, false
	}
	if w.armed() {
		return true, true // the falls disarm one another: expand fully
	}
	switch {
	case p == pr.raiser:
		switch {
		case f.raiserArms(w):
			return f.raisable(w, q) && !debug.brokenFaultPOR, true
		case !w.faultsLeft():
			return false, true // it ends RAISE, and no fault can fall
		}
		return true, true
	case p == pr.signal:
		if w.s[w.thread(Host)+tStatus] == finished {
			return false, true // it ends SIGINT
		}
		if b := w.hostPoll(); b >= 0 && !pr.isHost(q) && q != pr.raiser && pr.threadBlock[q] == b {
			return true, true // a landing in the poll, as the poll
		}
		return q == Host, true
	case q == pr.raiser:
		return f.raisable(w, p) && f.raiserArms(w) && !debug.brokenFaultPOR, true
	case q == pr.signal:
		if p == Host {
			return w.signalReady(), true
		}
		return w.signalReady() && !pr.isHost(p) && w.hostPoll() == pr.threadBlock[p] && !f.quiet(w, p), true
	case p == Host && w.paused(Host):
		return true, true
	}
	return false, false
}

// raiserArms reports whether RAISE's move now arms the fault (raiseMove):
// it is alive and not armed, the bound is not spent and some thread is
// raisable.
func (w *World) raiserArms() bool {
	pr := w.p
	if pr.raiser < 0 || w.s[w.thread(pr.raiser)+tStatus] != alive || w.armed() || !w.faultsLeft() {
		return false
	}
	h := w.holder()
	for t := range pr.NumThreads() {
		if w.raisable(t) && (h < 0 || h == t || !w.ready(h)) {
			return true
		}
	}
	return false
}

// signalReady reports whether SIGINT can land now (arm).
func (w *World) signalReady() bool {
	if w.p.signal < 0 {
		return false
	}
	sig := w.thread(w.p.signal)
	return w.s[sig+tStatus] == alive && w.s[sig+tEvent] != 0
}

// faultEnablers appends the threads that can enable blocked thread q's
// next move where a fault has a say, and whether it has.
func (w *World) faultEnablers(q int, buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	pr := w.p
	if pr.signal < 0 && pr.raiser < 0 {
		return buf, false
	}
	switch {
	case w.armed(), q == pr.raiser:
		return w.appendOthers(q, buf), true
	case q == pr.signal:
		return append(buf, sched.ThreadID(Host)), true // only the host's steps arm it
	case q == Host && w.signalReady():
		buf = append(buf, sched.ThreadID(pr.signal)) // a landing in its poll lets it go on
	}
	if w.raisable(q) && w.raiserArms() && !debug.brokenFaultPOR {
		buf = append(buf, sched.ThreadID(pr.raiser))
	}
	return buf, false
}

// hostPoll is the block host 0 polls now, or -1.
func (w *World) hostPoll() int {
	if w.s[w.thread(Host)+tStatus] != alive || !w.atPoll(Host) {
		return -1
	}
	return w.pollOf(Host)
}

// raiserArms is World.raiserArms of the state f was made for, asked once.
func (f *futures) raiserArms(w *World) bool {
	if f.arms == 0 {
		f.arms = 1
		if w.raiserArms() {
			f.arms = 2
		}
	}
	return f.arms == 2
}

// quiet is World.quiet(p) of the state f was made for, asked once.
func (f *futures) quiet(w *World, p int) bool {
	if f.quiets[p] == 0 {
		f.quiets[p] = -1
		if w.quietOn(p, &f.quietW) {
			f.quiets[p] = 1
		}
	}
	return f.quiets[p] == 1
}

// raisable is World.raisable(t) of the state f was made for, asked once.
func (f *futures) raisable(w *World, t int) bool {
	if f.raisables[t] == 0 {
		f.raisables[t] = 1
		if w.raisable(t) {
			f.raisables[t] = 2
		}
	}
	return f.raisables[t] == 2
}
