package model

import "fmt"

// Critical sections as transactions, for a search that proves a variant
// (check's auto): each run of a protocol's "with lock:" block, from the
// acquire to the release, is one step, and a thread's step that starts
// such a section commutes with every step of every other thread. Where a
// program's world is one the argument below covers
// (Program.Sections), check runs POR on that world of steps first; a
// violation found there is searched for again in the world of
// instructions, whose trace is the one reported.
//
// # The world it covers
//
// A protocol whose writes of a module's globals are guarded
// (Protocol.GuardsGlobals: merged, whose lock entries are kept and not
// overwritten, and global-lock), under gil, with one host, no raise
// statement and no fault. One host and no raise mean that the launch a
// GPU thread belongs to is joined before the host runs on: GPU threads
// run only while their launch's fake is the kernel context, and the
// host's own device calls run only while no GPU thread runs. So every
// two threads that can be in a module's swap at once store the same
// fake.
//
// # Sections are transactions
//
// Every access of a module's count, saved names, state entry or lock
// entry is made under one lock, the same for every thread (the module's
// registry entry, which merged never deletes and, a defaultdict miss
// being one step under gil, never overwrites: every fetch returns it; or
// global-lock's one lock), and a section never blocks inside nor
// spans the swap's yield (InSection's callers check both as they run). A
// write of a module's globals happens only where no other thread holds a
// reference to the module (CountGuardsGlobals, StateGuardsGlobals, checked
// as the listing runs), and only a thread that holds one reads them
// outside a section. So every step of a section but its acquire and its
// release touches what no other thread's step can touch while the section
// runs, and the acquire (a right mover) and the release (a left mover)
// make it Lipton's transaction: every execution of the world of
// instructions is equivalent (same steps of each thread, same failures,
// same end state) to one in which each section runs back to back.
//
// # Sections commute
//
// A section of module m is one of: the fetch of m's lock under the
// registration lock (merged: the first fetch makes the lock, and every
// order makes the same one, numbered in m's own pool), an entry (the
// count up by one; where it was 0, the globals bound to the real module
// saved and bound to the fake), or an exit (the count down by one; where
// it falls to 0, the saved names bound to the real module again and the
// entries deleted). Run back to back, two of them leave the same count,
// the same saved names and the same globals in either order, since both
// entrants store the same fake and the names an entry saves are those
// bound to the real module, which the last exit binds again; the locals
// they leave differ only in orig, a dead tmp and the frames popped, which
// no step reads after the section, and which Settle zeroes. A read of m's
// globals by another thread comes from one that holds a reference, and
// then no section of m writes them. So a thread whose next step starts a
// section conflicts with no other thread's step, but for the host's poll
// of its block where the section ends the thread (a loud step, as
// reduce_futures.go's group rules say), and POR runs it alone
// (CommutingSection).
//
// TestSectionsArePersistent (check/worldtest) runs every closure this
// gives on small worlds, both orders, as the other rules are run; the
// agreement tests hold the verdicts against the world of instructions.

// Sections reports whether the program's world is one the argument above
// covers.
func (pr *Program) Sections() bool {
	p := pr.Protocol
	if debug.sectionsAnyWorld {
		return p.GuardsGlobals()
	}
	if !p.GuardsGlobals() || pr.Atomicity != GIL || pr.hosts != 1 || pr.raises || pr.signal >= 0 || pr.raiser >= 0 {
		return false
	}
	return !p.CountGuardsGlobals || p.KeepsLockEntries() && !pr.Atomicity.overwrite()
}

// InSection reports whether thread t is inside a section: its top frame
// is in the swap's code, not its body, holding the global lock or its
// module's lock. It panics where a section would span the body or block
// inside, which the argument above excludes.
func (w *World) InSection(t int) bool {
	w.sync()
	base := w.thread(t)
	if w.s[base+tStatus] != alive || w.s[base+tDepth] == 0 {
		return false
	}
	f := w.top(t)
	owner := slot(t + 1)
	l := &w.p.lay
	held := w.s[l.lockOwner+int(GlobalLockRef)] == owner
	if r := LockRef(w.s[f+fLock]); r != 0 && w.s[l.lockOwner+int(r)] == owner {
		held = true
	}
	if held && (w.s[f+fInBody] == 1 || !w.ready(t)) {
		panic(fmt.Sprintf("model: protocol %s: thread %d holds a lock into its body or blocks inside a critical section: its sections are no transactions", w.p.Protocol.Name, t))
	}
	return held && w.s[f+fInBody] == 0
}

// CommutingSection reports whether thread p's next step starts a section
// (see above) in a program whose world Sections covers, which commutes
// with every step of thread q: with every step of any thread but p's
// host, and with the host's too where the section is quiet (it neither
// ends p nor touches its barrier flags, which the host's poll reads:
// the group rules of reduce_futures.go), as one run on a copy shows.
func (w *World) CommutingSection(p, q int) bool {
	if !w.p.Sections() {
		return false
	}
	w.sync()
	base := w.thread(p)
	if w.s[base+tStatus] != alive || w.s[base+tDepth] == 0 {
		return false
	}
	f := w.top(p)
	if w.s[f+fInBody] == 1 {
		return false
	}
	pr := w.p.Protocol
	pc := int(w.s[f+fPC])
	if pc < 0 || pc >= len(pr.Code) {
		return false
	}
	if in := &pr.Code[pc]; in.Ready == nil || in.Object != ModuleLock && in.Object != GlobalLock {
		return false
	}
	return q != w.p.hostOf(p) || w.sectionQuiet(p)
}

// sectionQuiet reports whether thread p's section, run on a copy, leaves
// p's status, barrier flags, abort and death as they are.
func (w *World) sectionQuiet(p int) bool {
	c := &World{p: w.p, s: append([]slot(nil), w.s...)}
	c.interpret(p)
	for c.InSection(p) {
		c.interpret(p)
	}
	return c.sameLoudFields(w, p)
}

// Settle zeroes what thread t holds dead once a section is over: orig,
// from the release on (merged's exit reads the saved names; global-lock's
// exit sets orig before its restore reads it), a tmp no next step takes
// (Ctx.Tmp), and the frames it popped. Two sections run in either order leave
// these in one thread or the other (see above), and nothing else.
func (w *World) Settle(t int) {
	if debug.sectionsUnsettled {
		return
	}
	w.sync()
	base := w.thread(t)
	y := w.p.Protocol.yield
	changed := false
	for d := range int(w.s[base+tDepth]) {
		f := base + tFrames + d*frameSize
		if (w.s[f+fInBody] == 1 || int(w.s[f+fPC]) == y) && w.s[f+fOrig] != 0 {
			w.s[f+fOrig] = 0
			changed = true
		}
		if w.s[f+fTmpSet] == 0 && w.s[f+fTmp] != 0 {
			w.s[f+fTmp] = 0
			changed = true
		}
	}
	// the frames popped: push clears a frame before its use (and no
	// generator an interrupt left suspended sits above the depth here:
	// Sections has no fault)
	for i := base + tFrames + int(w.s[base+tDepth])*frameSize; i < base+w.p.lay.memBase; i++ {
		if w.s[i] != 0 {
			w.s[i] = 0
			changed = true
		}
	}
	if changed {
		w.cache.fut = nil
		w.touch(t)
		w.forgetStatuses()
	}
}
