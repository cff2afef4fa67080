package model

// Test-only access to the step memo, for memo_test.go.

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
