package model

// The defaultdict miss path. Under the GIL, d[k] for a missing k runs
// __missing__ with a C factory (threading.Lock, int) inside one
// BINARY_SUBSCR: one atomic step that looks up, makes and stores. In
// free-threaded CPython before 3.13.12 / 3.14.3 the lookup, the factory call
// and the store are separate: two threads can both miss, and the later store
// overwrites the earlier one. These helpers take one step per call; in
// free-threaded mode a miss takes two (they Stay for the second half) and
// report done=false after the first.

// DefaultLock is "_globals_locks[gid]" on a defaultdict(threading.Lock).
func (c *Ctx) DefaultLock() (r LockRef, done bool) {
	if c.Sub() == 0 {
		if r, ok := c.LockEntry(); ok {
			return r, true
		}
		if c.splitMiss() {
			return 0, false
		}
	}
	r = c.NewLock()
	c.StoreLockEntry(r)
	return r, true
}

// DefaultCount is "_swap_refcount[gid]" (the BINARY_SUBSCR) on a
// defaultdict(int): a miss stores 0 (reading inserts the key).
func (c *Ctx) DefaultCount() (v int32, done bool) {
	if c.Sub() == 0 {
		if v, ok := c.Count(); ok {
			return v, true
		}
		if c.splitMiss() {
			return 0, false
		}
	}
	c.StoreCount(0)
	return 0, true
}

// splitMiss ends the lookup half of a free-threaded miss: the instruction
// runs again as the thread's next step, for __missing__'s factory and store.
// Under the GIL it returns false and the caller completes the miss now.
func (c *Ctx) splitMiss() bool {
	if !c.FreeThreaded() {
		return false
	}
	if c.w.Trace {
		c.w.effect("miss: __missing__ runs next step")
	}
	c.SetSub(1)
	c.Stay()
	return true
}
