package model

// The defaultdict miss path. Under the GIL, d[k] for a missing k runs
// __missing__ with a C factory (threading.Lock, int) inside one
// BINARY_SUBSCR: one atomic step that looks up, makes and stores. Without
// the GIL the lookup is one step and __missing__ (the factory call and the
// store) the next, so another thread can store the key in between. What
// the store does then depends on the build (see Atomicity): since
// gh-142495's fix it is a setdefault that keeps the other thread's value
// and returns it; before, a plain store that overwrites it, so the two
// threads hold different objects. These helpers take one step per call;
// in a free-threaded mode a miss takes two (they Stay for the second half)
// and report done=false after the first.

// DefaultLock is "_globals_locks[gid]" on a defaultdict(threading.Lock).
func (c *Ctx) DefaultLock() (r LockRef, done bool) {
	if c.Sub() == 0 {
		if r, ok := c.LockEntry(); ok {
			return r, true
		}
		if c.splitMiss() {
			return 0, false
		}
	} else if c.keepsStored() {
		if r, ok := c.LockEntry(); ok {
			return r, true
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
		if v, ok := c.count(); ok {
			return v, true
		}
		if c.splitMiss() {
			return 0, false
		}
	} else if c.keepsStored() {
		if v, ok := c.count(); ok {
			return v, true
		}
	}
	c.StoreCount(0)
	return 0, true
}

// SplitHalf reports whether the step was the lookup half of a
// free-threaded defaultdict miss, whose __missing__ runs as the thread's
// next step: a switch between the two is one no GIL build makes.
func (ev *Event) SplitHalf() bool { return ev.splitHalf }

// splitMiss ends the lookup half of a free-threaded miss: the instruction
// runs again as the thread's next step, for __missing__'s factory and store.
// Under the GIL it returns false and the caller completes the miss now.
func (c *Ctx) splitMiss() bool {
	if !c.w.p.Atomicity.splitMiss() {
		return false
	}
	if c.w.Trace {
		c.w.effect("miss: __missing__ runs next step")
	}
	c.w.cache.ev.splitHalf = true
	c.SetSub(1)
	c.Stay()
	return true
}

// keepsStored reports, in the second half of a split miss, whether
// __missing__ stores with setdefault (gh-142495 fixed): then a value
// another thread stored since the lookup is kept and returned, and the
// factory's fresh object is dropped unseen, so the model does not make it.
func (c *Ctx) keepsStored() bool {
	if c.w.p.Atomicity.overwrite() {
		return false
	}
	if c.w.Trace {
		c.w.effect("__missing__: factory, then setdefault")
	}
	return true
}
