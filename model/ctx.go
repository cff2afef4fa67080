package model

import (
	"fmt"
	"strconv"
)

// LockRef names a threading.Lock object; 0 is no lock. Lock 1 is the
// protocol's global lock; the others are made by the lock registry's
// defaultdict factory, in order.
type LockRef int32

// Ctx is what a protocol instruction sees: the world, the running thread,
// and the locals of its swapped_cuda_module generator frame. Its methods
// are the Python operations the listings are written in; each stands for
// the bytecode(s) its instruction names.
type Ctx struct {
	w    *World
	t    int
	f    int // offset of the frame
	next int
	exc  Exc
	// reraised: exc is a pending exception passed on, not a new one.
	reraised bool
	// tmpSet: this step set the frame's tmp (see Tmp).
	tmpSet bool
	// unchecked: this pass took a path without the instruction's check
	// (NoCheck).
	unchecked bool
}

// newCtx readies w's one Ctx for a step of thread t's frame f. It sets the
// fields one by one, and the pointer only when it is not w already, so
// the hot path writes no pointers (no GC write barriers).
func (w *World) newCtx(t, f int) *Ctx {
	c := &w.cache.ctx
	if c.w != w {
		c.w = w
	}
	c.t, c.f, c.next, c.exc, c.reraised, c.tmpSet, c.unchecked = t, f, 0, 0, false, false, false
	return c
}

// ---- control flow ----

// Jump continues at the instruction labelled label.
func (c *Ctx) Jump(label string) { c.next = c.w.p.Protocol.label(label) }

// NoCheck says that this pass of the instruction took a path without
// the eval-breaker check its Check names: a test that short-circuits
// before the call that checks (merged-fix's "while _swap_refcount[gid]
// and any(...)" with the count 0 never calls any()).
func (c *Ctx) NoCheck() { c.unchecked = true }

// Stay runs the same instruction again as the thread's next step (a loop
// that takes one step per pass, or the second half of a split operation).
func (c *Ctx) Stay() { c.next -= 1 }

// Raise raises e from this instruction.
func (c *Ctx) Raise(e Exc) { c.exc = e }

// Reraise ends a finally block or a with's exit: the pending exception, if
// any, propagates (RERAISE).
func (c *Ctx) Reraise() {
	if e := Exc(c.w.s[c.f+fExc]); e != 0 {
		c.w.s[c.f+fExc] = 0
		c.exc, c.reraised = e, true
	}
}

// Pending is the exception a finally block or a with's exit is running for.
func (c *Ctx) Pending() Exc { return Exc(c.w.s[c.f+fExc]) }

// Sub is the instruction's own step counter (0 on first entry), for an
// operation that takes several steps in one atomicity model.
func (c *Ctx) Sub() int32 { return int32(c.w.s[c.f+fSub]) }

// SetSub sets the counter for the next run of this instruction (see Stay).
func (c *Ctx) SetSub(n int32) { c.w.s[c.f+fSub] = slot(n) }

// ---- locals of the generator frame ----

// Fake is the local fake_cuda_module.
func (c *Ctx) Fake() Value { return Value(c.w.s[c.f+fFake]) }

// Lock is the local lock.
func (c *Ctx) Lock() LockRef { return LockRef(c.w.s[c.f+fLock]) }

// SetLock stores the local lock.
func (c *Ctx) SetLock(r LockRef) { c.w.s[c.f+fLock] = slot(r) }

// Orig is the local orig: the set of globals (by index) it maps to the
// real module. Every protocol builds orig with "if v is cuda", so its values
// are always the real module and a set of keys says all there is to say.
func (c *Ctx) Orig() uint32 { return uint32(uint16(c.w.s[c.f+fOrig])) }

// SetOrig stores the local orig.
func (c *Ctx) SetOrig(m uint32) { c.w.s[c.f+fOrig] = slot(uint16(m)) }

// Iter is the position of the running "for" loop over a dict.
func (c *Ctx) Iter() int { return int(c.w.s[c.f+fIter]) }

// SetIter stores the loop position.
func (c *Ctx) SetIter(i int) { c.w.s[c.f+fIter] = slot(i) }

// Flag is the listing's one boolean local (merged-fix's entered), false
// on the frame's entry.
func (c *Ctx) Flag() bool { return c.w.s[c.f+fFlag] != 0 }

// SetFlag stores the boolean local.
func (c *Ctx) SetFlag(b bool) {
	c.w.s[c.f+fFlag] = 0
	if b {
		c.w.s[c.f+fFlag] = 1
	}
}

// Tmp is the value a BINARY_SUBSCR left on the stack for the STORE_SUBSCR
// of the same "d[k] += 1".
//
// What one step leaves on the stack, the frame's next step consumes: Tmp
// and TmpKeys may be read only by the step right after the one that set
// them (they panic otherwise). The frame's tmpSet slot says when that is,
// so that AppendCanonicalKey can leave a tmp nobody will read out of the
// key.
func (c *Ctx) Tmp() int32 {
	c.checkTmp()
	return int32(c.w.s[c.f+fTmp])
}

// SetTmp keeps a loaded value for the next step.
func (c *Ctx) SetTmp(v int32) {
	c.w.s[c.f+fTmp], c.w.s[c.f+fTmpSet], c.tmpSet = slot(v), 1, true
}

// TmpKeys is a set of globals a C call left on the stack for the next
// step (the dict _swap_orig.pop returned).
func (c *Ctx) TmpKeys() uint32 {
	c.checkTmp()
	return uint32(uint16(c.w.s[c.f+fTmp]))
}

// SetTmpKeys keeps a set of globals for the next step.
func (c *Ctx) SetTmpKeys(keys uint32) {
	c.w.s[c.f+fTmp], c.w.s[c.f+fTmpSet], c.tmpSet = slot(uint16(keys)), 1, true
}

func (c *Ctx) checkTmp() {
	if c.w.s[c.f+fTmpSet] == 0 {
		panic(fmt.Sprintf("model: protocol %s: instruction %d reads a tmp that the frame's previous step did not set", c.w.p.Protocol.Name, c.next-1))
	}
}

// ---- fn.__globals__ of the callee's module ----

func (c *Ctx) module() int { return c.w.p.codes[c.w.s[c.f+fCode]].module }

// GlobalsLen is len(fn_globs).
func (c *Ctx) GlobalsLen() int { return c.w.p.lay.globalsLen[c.module()] }

// Global is the value of the i-th global, in dict order.
func (c *Ctx) Global(i int) Value {
	v := Value(c.w.s[c.w.p.lay.globals[c.module()]+i])
	if c.w.Trace {
		c.w.effect("%s is %s", c.globalName(i), v)
	}
	return v
}

// SetGlobal is fn_globs[k] = v for the i-th global (an existing key: the
// dict keeps its size and order).
func (c *Ctx) SetGlobal(i int, v Value) {
	c.checkGlobalsWrite(1<<i, v)
	c.w.s[c.w.p.lay.globals[c.module()]+i] = slot(v)
	if c.w.Trace {
		c.w.effect("%s = %s", c.globalName(i), v)
	}
}

// UpdateGlobals is fn_globs.update({k: v for k in keys}): one C call.
func (c *Ctx) UpdateGlobals(keys uint32, v Value) {
	c.checkGlobalsWrite(keys, v)
	base := c.w.p.lay.globals[c.module()]
	for i := range c.GlobalsLen() {
		if keys&(1<<i) != 0 {
			c.w.s[base+i] = slot(v)
			if c.w.Trace {
				c.w.effect("%s = %s", c.globalName(i), v)
			}
		}
	}
	if keys == 0 {
		if c.w.Trace {
			c.w.effect("nothing to update")
		}
	}
}

func (c *Ctx) globalName(i int) string {
	m := c.module()
	return c.w.p.Scenario.Modules[m].Name + "." + c.w.p.globalNames[m][i]
}

// KeyNames renders a set of globals for traces.
func (c *Ctx) KeyNames(keys uint32) string {
	s := "{"
	first := true
	for i := range c.GlobalsLen() {
		if keys&(1<<i) != 0 {
			if !first {
				s += ", "
			}
			s += c.w.p.globalNames[c.module()][i]
			first = false
		}
	}
	return s + "}"
}

// ---- registries, keyed by gid = id(fn_globs) ----

func (c *Ctx) modName() string { return c.w.p.Scenario.Modules[c.module()].Name }

// LockEntry is _globals_locks.get(gid): the lock and whether it is there.
func (c *Ctx) LockEntry() (LockRef, bool) {
	r := LockRef(c.w.s[c.w.p.lay.lockReg+c.module()])
	if r == 0 {
		if c.w.Trace {
			c.w.effect("_globals_locks[%s] is missing", c.modName())
		}
	} else {
		if c.w.Trace {
			c.w.effect("_globals_locks[%s] is lock#%d", c.modName(), r)
		}
	}
	return r, r != 0
}

// StoreLockEntry is _globals_locks[gid] = r.
func (c *Ctx) StoreLockEntry(r LockRef) {
	c.w.s[c.w.p.lay.lockReg+c.module()] = slot(r)
	if c.w.Trace {
		c.w.effect("_globals_locks[%s] = lock#%d", c.modName(), r)
	}
}

// DelLockEntry is del _globals_locks[gid]: KeyError when missing.
func (c *Ctx) DelLockEntry() {
	c.mustDeclareDelete()
	i := c.w.p.lay.lockReg + c.module()
	if c.w.s[i] == 0 {
		if c.w.Trace {
			c.w.effect("_globals_locks[%s] is missing: KeyError", c.modName())
		}
		c.Raise(KeyError)
		return
	}
	c.w.s[i] = 0
	if c.w.Trace {
		c.w.effect("del _globals_locks[%s]", c.modName())
	}
}

// NewLock is threading.Lock(): a new, unlocked lock, from the module's
// own pool of lock references.
func (c *Ctx) NewLock() LockRef {
	m := c.module()
	i := c.w.p.lay.nextLock + m
	k := int(c.w.s[i])
	if k >= c.w.p.lockPoolSize[m] {
		panic("model: more locks made for a module than the program allowed for")
	}
	c.w.s[i] = slot(k + 1)
	r := LockRef(c.w.p.lockPool[m] + k)
	if c.w.Trace {
		c.w.effect("threading.Lock() makes lock#%d", r)
	}
	return r
}

// The count and the saved names are each a dict entry keyed by gid: a
// present flag and a value in the state vector. entry names one of them.
type entry struct {
	present, value int // offsets of module 0's slots
	name           string
}

func (c *Ctx) countEntry() entry {
	return entry{c.w.p.lay.countP, c.w.p.lay.count, c.w.p.Protocol.countName()}
}

func (c *Ctx) savedEntry() entry {
	return entry{c.w.p.lay.origP, c.w.p.lay.orig, c.w.p.Protocol.savedName()}
}

// get is the entry's value and whether the key is there.
func (c *Ctx) get(e entry, render func(slot) string) (slot, bool) {
	m := c.module()
	if c.w.s[e.present+m] == 0 {
		if c.w.Trace {
			c.w.effect(e.name+" is missing", c.modName())
		}
		return 0, false
	}
	v := c.w.s[e.value+m]
	if c.w.Trace {
		c.w.effect(e.name+" is %s", c.modName(), render(v))
	}
	return v, true
}

// store is d[gid] = v.
func (c *Ctx) store(e entry, v slot, render func(slot) string) {
	m := c.module()
	c.w.s[e.present+m], c.w.s[e.value+m] = 1, v
	if c.w.Trace {
		c.w.effect(e.name+" = %s", c.modName(), render(v))
	}
}

// del is del d[gid]: KeyError when missing.
func (c *Ctx) del(e entry) {
	m := c.module()
	if c.w.s[e.present+m] == 0 {
		if c.w.Trace {
			c.w.effect(e.name+" is missing: KeyError", c.modName())
		}
		c.Raise(KeyError)
		return
	}
	c.w.s[e.present+m], c.w.s[e.value+m] = 0, 0
	if c.w.Trace {
		c.w.effect("del "+e.name, c.modName())
	}
}

func renderCount(v slot) string { return strconv.Itoa(int(v)) }

func (c *Ctx) renderKeys(v slot) string { return c.KeyNames(uint32(uint16(v))) }

// Count is _swap_refcount.get(gid) and whether the key is there: a read
// that tells a missing entry from one that holds 0, which a protocol that
// says ZeroCountIsMissing never makes.
func (c *Ctx) Count() (int32, bool) {
	if c.w.p.Protocol.ZeroCountIsMissing {
		c.contradicts("ZeroCountIsMissing", "reads the count as a plain dict (_swap_refcount.get(gid)), not through its default")
	}
	return c.count()
}

// count is the count's entry and whether it is there, for Count and for
// the defaultdict's own lookup (DefaultCount).
func (c *Ctx) count() (int32, bool) {
	v, ok := c.get(c.countEntry(), renderCount)
	return int32(v), ok
}

// StoreCount is _swap_refcount[gid] = v.
func (c *Ctx) StoreCount(v int32) { c.store(c.countEntry(), slot(v), renderCount) }

// DelCount is del _swap_refcount[gid]: KeyError when missing.
func (c *Ctx) DelCount() {
	c.mustDeclareDelete()
	c.del(c.countEntry())
}

// Saved is _swap_orig.get(gid): the saved names, and whether the key is there.
func (c *Ctx) Saved() (uint32, bool) {
	v, ok := c.get(c.savedEntry(), c.renderKeys)
	return uint32(uint16(v)), ok
}

// StoreSaved is _swap_orig[gid] = keys.
func (c *Ctx) StoreSaved(keys uint32) { c.store(c.savedEntry(), slot(uint16(keys)), c.renderKeys) }

// DelSaved removes the saved names: KeyError when missing.
func (c *Ctx) DelSaved() {
	c.mustDeclareDelete()
	c.del(c.savedEntry())
}

// OtherFakeInstalled is merged-fix's wait condition, read without a
// trace: "_swap_refcount[gid] and any(fn_globs[k] is not
// fake_cuda_module for k in _swap_orig[gid])": the module is swapped
// (its count is not 0) and some name it saved holds something other than
// this frame's fake, i.e. another launch's fake (or None, a host's).
func (c *Ctx) OtherFakeInstalled() bool {
	l, m := &c.w.p.lay, c.module()
	if c.w.s[l.countP+m] == 0 || c.w.s[l.count+m] == 0 {
		return false
	}
	if c.w.s[l.origP+m] == 0 {
		return false // any() over a missing entry would raise: Busy's caller panics on it
	}
	keys := uint32(uint16(c.w.s[l.orig+m]))
	base := l.globals[m]
	for i := range c.GlobalsLen() {
		if keys&(1<<i) != 0 && Value(c.w.s[base+i]) != c.Fake() {
			return true
		}
	}
	return false
}

// Aborted reports whether the running thread's abort flag is set:
// getattr(threading.current_thread(), "abort", False) for a BlockThread
// that BlockManager.run aborted (a host thread has no such attribute, and
// one the host left by an interrupt has it still False).
func (c *Ctx) Aborted() bool {
	return !c.w.p.isHost(c.t) && c.w.s[c.w.thread(c.t)+tAbort] == 1
}

// ---- locks ----

// LockFree reports whether lock r is unlocked (acquire would not block).
func (c *Ctx) LockFree(r LockRef) bool { return c.w.s[c.w.p.lay.lockOwner+int(r)] == 0 }

// Acquire takes lock r; the instruction's Ready must have said it is free.
func (c *Ctx) Acquire(r LockRef) {
	i := c.w.p.lay.lockOwner + int(r)
	if c.w.s[i] != 0 {
		panic("model: acquire of a held lock ran; its instruction lacks Ready")
	}
	// The owner is stored as thread+1 (0: unlocked). Only whether it is 0
	// is ever read; AppendCanonicalKey renames it with its thread.
	c.w.s[i] = slot(c.t + 1)
	if c.w.Trace {
		c.w.effect("acquires lock#%d", r)
	}
}

// Release is lock.release(): RuntimeError when the lock is not held.
func (c *Ctx) Release(r LockRef) {
	i := c.w.p.lay.lockOwner + int(r)
	if c.w.s[i] == 0 {
		if c.w.Trace {
			c.w.effect("lock#%d is not held: RuntimeError", r)
		}
		c.Raise(RuntimeError)
		return
	}
	c.w.s[i] = 0
	if c.w.Trace {
		c.w.effect("releases lock#%d", r)
	}
}

// GlobalLockRef is the protocol's global lock.
const GlobalLockRef LockRef = 1

// ---- the protocol's declared facts, checked as its listing runs ----

// contradicts panics: the running step contradicts a fact its protocol
// declares (Protocol), which POR or the end-state checks rely on.
func (c *Ctx) contradicts(fact, what string) {
	p := c.w.p.Protocol
	pc := c.w.s[c.f+fPC]
	panic(fmt.Sprintf("model: protocol %s says %s, but its step at %s %s", p.Name, fact, p.where[pc], what))
}

// mustDeclareDelete panics unless the running instruction says it
// deletes registry entries (Instr.Deletes), which KeepsLockEntries is
// read from.
func (c *Ctx) mustDeclareDelete() {
	p := c.w.p.Protocol
	if pc := c.w.s[c.f+fPC]; !p.Code[pc].Deletes {
		panic(fmt.Sprintf("model: protocol %s's step at %s deletes a registry entry but does not say so (Instr.Deletes)", p.Name, p.where[pc]))
	}
}

// checkGlobalsWrite checks a write of the module's globals keys, storing
// v, against the facts the protocol declares of such writes.
func (c *Ctx) checkGlobalsWrite(keys uint32, v Value) {
	p := c.w.p.Protocol
	if v == Dispatch && !p.Dispatches {
		c.contradicts("it does not dispatch (Dispatches false)", "stores the dispatcher")
	}
	if p.StoresDispatchOverReal && keys != 0 {
		base := c.w.p.lay.globals[c.module()]
		for i := range c.GlobalsLen() {
			if old := Value(c.w.s[base+i]); keys&(1<<i) != 0 && (v != Dispatch || old != Real && old != Dispatch) {
				c.contradicts("StoresDispatchOverReal", fmt.Sprintf("stores %s over %s", v, old))
			}
		}
	}
	if p.CountGuardsGlobals {
		r := c.Lock()
		if r == 0 || c.w.s[c.w.p.lay.lockOwner+int(r)] != slot(c.t+1) {
			c.contradicts("CountGuardsGlobals", "writes the module's globals without holding its lock")
		}
		// Where every thread takes the module's one lock (the conditions
		// under which POR pins modules: predictedLock, futuresKnown), the
		// count it read 0 under that lock is 0 still.
		if l := &c.w.p.lay; p.KeepsLockEntries() && !c.w.p.Atomicity.overwrite() && c.w.p.signal < 0 &&
			c.w.s[l.countP+c.module()] != 0 && c.w.s[l.count+c.module()] != 0 {
			c.contradicts("CountGuardsGlobals", "writes the module's globals while its count is not 0")
		}
	}
	if p.StateGuardsGlobals {
		if c.w.s[c.w.p.lay.lockOwner+int(GlobalLockRef)] != slot(c.t+1) {
			c.contradicts("StateGuardsGlobals", "writes the module's globals without holding the global lock")
		}
		if !p.holds[c.w.s[c.f+fPC]] {
			c.contradicts("StateGuardsGlobals", "writes the module's globals holding no reference")
		}
		// the entry counts the writer's reference and no other (where POR
		// pins modules by it: no interrupt, no raise fault)
		if l := &c.w.p.lay; c.w.p.signal < 0 && c.w.p.raiser < 0 &&
			(c.w.s[l.countP+c.module()] == 0 || c.w.s[l.count+c.module()] != 0) {
			c.contradicts("StateGuardsGlobals", "writes the module's globals while its state entry counts another reference")
		}
	}
}
