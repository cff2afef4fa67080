package model

// Test hooks: what the tests of the model against the real protocols
// (check/worldtest, which cannot live in this package: the protocols
// import it) read of a world's insides, and the switches of debug they set
// to check the speed machinery against the plain interpreter or to break
// a reduction on purpose. No package of the program calls them
// (TestHooksAreForTestsOnly, model/hooks_test.go), and a search that never
// calls them runs with debug's zero value.

import "swapcheck/sched"

// The interrupt fault (interrupt.go).

// NarrowSignalForTest makes the interrupt's footprint wrong on purpose (see
// debug.narrowSignal) until the returned function restores it.
func NarrowSignalForTest() (restore func()) {
	debug.narrowSignal = true
	return func() { debug.narrowSignal = false }
}

// PausedForTest reports whether thread t stands at an interrupt's landing.
func (w *World) PausedForTest(t int) bool { w.sync(); return w.paused(t) }

// ThreadSlotsForTest is a copy of thread t's slot block.
func (w *World) ThreadSlotsForTest(t int) []int16 {
	w.sync()
	b := w.thread(t)
	return append([]int16(nil), w.s[b:b+w.p.lay.threadSize]...)
}

// The raise fault (raisefault.go).

// NarrowRaiseForTest makes the raise fault's footprint wrong on purpose (see
// debug.narrowRaise) until the returned function restores it.
func NarrowRaiseForTest() (restore func()) {
	debug.narrowRaise = true
	return func() { debug.narrowRaise = false }
}

// BreakFaultPORForTest makes POR's fault rules wrong on purpose (see
// debug.brokenFaultPOR) until the returned function restores them.
func BreakFaultPORForTest() (restore func()) {
	debug.brokenFaultPOR = true
	return func() { debug.brokenFaultPOR = false }
}

// KeepCutsPastRaisesForTest makes POR's futures wrong on purpose (see
// debug.cutsHoldPastRaises) until the returned function restores them.
// A Program keeps the futures it made (futures.memo): make the programs
// to test after the call, and do not use them after the restore.
func KeepCutsPastRaisesForTest() (restore func()) {
	debug.cutsHoldPastRaises = true
	return func() { debug.cutsHoldPastRaises = false }
}

// LocalStepsForTest reports whether ev is a paused host's step of local
// steps alone: its window stopped at a landing, before its shared step
// (interrupt.go).
func (ev *Event) LocalStepsForTest() bool { return ev.src == srcLocal }

// The symmetry reduction (reduce_canonical.go), for
// check/worldtest/reduce_canonical_test.go.

// BrokenSymmetry names a deliberately broken reduction (see
// debug.brokenSymmetry).
type BrokenSymmetry = brokenSymmetry

// The broken reductions the tests must catch.
const (
	BrokenOneGroup     = brokenOneGroup
	BrokenTopFrameOnly = brokenTopFrameOnly
	BrokenNoRename     = brokenNoRename
	BrokenNoOwners     = brokenNoOwners
	BrokenBranchBlind  = brokenBranchBlind
)

func (b BrokenSymmetry) String() string {
	switch b {
	case brokenOneGroup:
		return "one group for all GPU threads"
	case brokenTopFrameOnly:
		return "top frame only"
	case brokenNoRename:
		return "sorted without renaming lock owners"
	case brokenNoOwners:
		return "lock owners left out"
	case brokenBranchBlind:
		return "blind to branch outcomes"
	}
	return "sound"
}

// BreakSymmetryForTest switches the canonical key to a broken one until
// the returned function is called. Tests that use it must not run in
// parallel with others of this package.
func BreakSymmetryForTest(b BrokenSymmetry) (restore func()) {
	old := debug.brokenSymmetry
	debug.brokenSymmetry = b
	return func() { debug.brokenSymmetry = old }
}

// VerifyCanonForTest makes every canonical key check its scratch against
// a lookup of every thread (see debug.verifyCanon) until the returned
// function is called.
func VerifyCanonForTest() (restore func()) {
	debug.verifyCanon = true
	return func() { debug.verifyCanon = false }
}

// GroupsForTest are the groups of interchangeable threads: each block's.
func (p *Program) GroupsForTest() [][]int { return p.blockThreads }

// PermutedForTest is w with the threads renamed by perm (thread t becomes
// perm[t]): each thread's slots move to its new place, and the lock owners
// follow. A perm that moves threads between groups makes a state of
// another orbit (the tests use it so).
func (w *World) PermutedForTest(perm []int) *World {
	c := w.Clone()
	l := &w.p.lay
	for t := range w.NumThreads() {
		copy(c.s[c.thread(perm[t]):][:l.threadSize], w.s[w.thread(t):][:l.threadSize])
	}
	for r := 1; r <= w.p.maxLocks; r++ {
		if o := w.s[l.lockOwner+r]; o != 0 {
			c.s[l.lockOwner+r] = slot(perm[o-1] + 1)
		}
	}
	return c
}

// LiveVectorForTest is w's vector with its dead slots (see
// AppendCanonicalKey) zeroed: the frames above each thread's depth, all of
// a finished thread but its status and died exception, and each frame's
// tmp unless the step just before set it.
func (w *World) LiveVectorForTest() []byte {
	c := w.Clone()
	l := &w.p.lay
	for t := range w.NumThreads() {
		base := c.thread(t)
		block := c.s[base : base+l.threadSize]
		if block[tStatus] == finished {
			died := block[tDied]
			clear(block)
			block[tStatus], block[tDied] = finished, died
			continue
		}
		clear(block[tFrames+int(block[tDepth])*frameSize:])
		for f := tFrames; f < len(block); f += frameSize {
			if block[f+fTmpSet] == 0 {
				block[f+fTmp] = 0
			}
		}
	}
	return c.AppendKey(nil)
}

// SlotsForTest is the length of w's state vector.
func (w *World) SlotsForTest() int { return len(w.s) }

// WithSlotForTest is w with slot i increased by delta: a state that may be
// unreachable, but has a key all the same. It reports false, and returns
// nil, when the change would break the vector's structure (a depth out of
// range, a lock owner that is no thread).
func (w *World) WithSlotForTest(i int, delta int16) (*World, bool) {
	c := w.Clone()
	c.s[i] += delta
	l := &w.p.lay
	if i > l.lockOwner && i < l.threads && int(c.s[i]) > w.NumThreads() {
		return nil, false
	}
	if i >= l.threads && (i-l.threads)%l.threadSize == tDepth && (c.s[i] < 1 || int(c.s[i]) > w.p.maxFrames) {
		return nil, false
	}
	return c, true
}

// ContextForTest is _kernel_context.
func (w *World) ContextForTest() Value {
	w.sync()
	return Value(w.s[w.p.lay.ctx])
}

// OrderByNumberForTest makes AppendCanonicalOrder sort by the parts'
// numbers (see debug.orderByNumber) until the returned function is
// called.
func OrderByNumberForTest() (restore func()) {
	debug.orderByNumber = true
	return func() { debug.orderByNumber = false }
}

// The futures of por (reduce_futures.go), for
// check/worldtest/reduce_futures_test.go and pinned_test.go.

// FutureCoversForTest reports whether thread t's future, while the frozen
// threads take no step, has a step that stands for a step with footprint
// fp (the host's poll of block poll-1 when poll is not 0): one on the same
// object with at least its access, an unknown lock of the module whose
// lock fp names, or, for a local step, any step at all.
func (w *World) FutureCoversForTest(t int, frozen []bool, deathsFail bool, fp sched.Footprint, poll int) bool {
	l := &w.p.lay
	f := w.futures(deathsFail)
	segs := f.thread(w, t)
	for i := range segs {
		g := &segs[i]
		if f.holds(w, g.cut, frozen) {
			return false
		}
		switch {
		case g.unknown:
			return true
		case poll != 0:
			if g.polls&(1<<(poll-1)) != 0 {
				return true
			}
			continue
		case fp.Access == sched.Local:
			if g.steps > 0 {
				return true
			}
			continue
		}
		if r := fp.Object - l.objLock; r > int(GlobalLockRef) {
			for m := range w.p.lockPool {
				if g.anyLock&(1<<m) != 0 && r >= w.p.lockPool[m] && r < w.p.lockPool[m]+w.p.lockPoolSize[m] {
					return true
				}
			}
		}
		word, bit := fp.Object/64, uint64(1)<<(fp.Object%64)
		if g.writes[word]&bit != 0 || g.gwrites[word]&bit != 0 || fp.Access == sched.Read && g.reads[word]&bit != 0 {
			return true
		}
	}
	return false
}

// PollOfForTest is the block whose poll is the host's next step, plus one, or 0.
func (w *World) PollOfForTest() int {
	w.sync()
	f := w.top(Host)
	if w.s[f+fInBody] == 1 {
		if st := &w.p.codes[w.s[f+fCode]].stmts[w.s[f+fBody]]; st.kind == sPoll {
			return 1 + st.arg
		}
	}
	return 0
}

// PinnedForTest reports whether module m is pinned while the frozen threads take
// no step (reduce_futures.go, "Pinned modules").
func (w *World) PinnedForTest(m int, frozen []bool) bool {
	w.sync()
	return w.pinned(m, frozen)
}

// GlobalsWrittenForTest is the module whose globals fp writes, or -1.
func (w *World) GlobalsWrittenForTest(fp sched.Footprint) int {
	l := &w.p.lay
	if fp.Access == sched.Write && fp.Object >= l.objGlobals && fp.Object < l.objLockReg {
		return fp.Object - l.objGlobals
	}
	return -1
}

// BreakPinForTest pins every module of a protocol whose count guards its
// globals, whatever its count, until the returned function runs.
func BreakPinForTest() func() {
	debug.brokenPin = true
	return func() { debug.brokenPin = false }
}

// BreakSectionsWorldForTest takes every world of a protocol with guarded
// globals as one whose critical sections commute (debug.sectionsAnyWorld)
// until the returned function runs.
func BreakSectionsWorldForTest() func() {
	debug.sectionsAnyWorld = true
	return func() { debug.sectionsAnyWorld = false }
}

// UnsettleSectionsForTest makes World.Settle leave orig where it is
// (debug.sectionsUnsettled) until the returned function runs.
func UnsettleSectionsForTest() func() {
	debug.sectionsUnsettled = true
	return func() { debug.sectionsUnsettled = false }
}

// BreakMacroForTest makes POR's macro steps their first step only
// (debug.firstStepOnly) until the returned function is called.
func BreakMacroForTest() func() {
	debug.firstStepOnly = true
	return func() { debug.firstStepOnly = false }
}

// GlobalsLenForTest is the number of module m's globals.
func (pr *Program) GlobalsLenForTest(m int) int { return pr.lay.globalsLen[m] }

// The step memo and the packed vectors (speed_memo.go, speed_compact.go),
// for check/worldtest/speed_memo_test.go.

// RecallsForTest reports whether thread t's next step from w would be
// recalled from the program's memo rather than run.
func (w *World) RecallsForTest(t int) bool {
	k, ok := w.memoKeyOf(t)
	if !ok {
		return false
	}
	_, _, _, ok = w.p.steps.find(k)
	return ok
}

// VerifyMemoForTest makes every step the memo could recall run the
// interpreter and check the memo against it (see debug.verifyMemo) until
// the returned function is called.
func VerifyMemoForTest() (restore func()) {
	debug.verifyMemo = true
	return func() { debug.verifyMemo = false }
}

// StepsMemoizedForTest is how many GPU steps p's memo holds.
func (p *Program) StepsMemoizedForTest() int {
	p.steps.mu.Lock()
	defer p.steps.mu.Unlock()
	return p.steps.n
}

// StaleForTest reports whether w's vector is out of date, its numbers
// being its state (see speed_lazy.go).
func (w *World) StaleForTest() bool { return w.cache.stale }

// KeepVectorsForTest keeps every world's vector current (no world goes
// stale) until the returned function is called.
func KeepVectorsForTest() (restore func()) {
	debug.keepVectors = true
	return func() { debug.keepVectors = false }
}

// PackUvarintsForTest packs nums as CompactWord packs a world's numbers
// (globals first, then blocks, set one by one with setBlock), with nums[at]
// taken to be n (at 0 or less: none) as PeekWord packs them.
func PackUvarintsForTest(nums []uint32, at int, n uint32) (uint64, bool) {
	w := &World{cache: worldCache{blocks: make([]uint32, len(nums)-1)}}
	for t, m := range nums[1:] {
		w.setBlock(t, m)
	}
	return w.packWord(nums[0], at-1, n)
}

// PackPeekedForTest is PackUvarintsForTest as PeekWord packs the numbers
// a step leaves, with the globals' uvarint from the memo's aux
// (globalsUvarint); at must be positive, a thread's number plus one.
func PackPeekedForTest(nums []uint32, at int, n uint32) (uint64, bool) {
	w := &World{cache: worldCache{blocks: make([]uint32, len(nums)-1)}}
	for t, m := range nums[1:] {
		w.setBlock(t, m)
	}
	if x, ok := w.packPeeked(at-1, uint64(n)<<32|uint64(nums[0]), globalsUvarint(nums[0])); ok {
		return x, true
	}
	return w.packWord(nums[0], at-1, n) // as PeekWord does
}

// The GIL and readiness (switchpoint.go).

// ReadyForTest reports whether thread t of w is alive and its next step
// can run in itself (a lock free, the barrier released), whether or not
// another thread keeps the GIL. It reads a copy: w's speed machinery is
// left as it is.
func (w *World) ReadyForTest(t int) bool {
	c := w.Clone()
	return c.s[c.thread(t)+tStatus] == alive && c.ready(t)
}

// HolderForTest is the thread that keeps the GIL in w, or -1.
func (w *World) HolderForTest() int { return w.Clone().holder() }
