package model

// Test-only access to the symmetry machinery, for canonical_test.go.

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
