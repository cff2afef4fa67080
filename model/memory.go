package model

import (
	"fmt"

	"swapcheck/scenario"
	"swapcheck/sched"
)

// The simulator's other shared state (scenario/memory.go): the kernel's
// arrays, FakeCUDAAtomic's module-level locks, and FakeCUDAShared's
// allocations, as numba-cuda HEAD's numba_cuda/numba/cuda/simulator/
// kernelapi.py runs them (the same code as numba 0.56.4's but for the
// lines, scenario.Atomics, and for cas; FakeCUDAShared.array is lines
// 112-136 at HEAD, 100-121 in 0.56.4).
//
// # An atomic: FakeCUDAAtomic.add (kernelapi.py:154-158)
//
//	with addlock:                 # acquire: BEFORE_WITH (lock.__enter__)
//	    old = array[index]        # read: BINARY_SUBSCR
//	    array[index] += val       # reread: BINARY_SUBSCR; BINARY_OP +=;
//	                              # write: STORE_SUBSCR
//	return old                    # release: the with's exit (lock.__exit__)
//
// after the kernel's LOAD_GLOBAL cuda; LOAD_ATTR atomic (a use of cuda:
// the real module has no atomic, and a thread that sees it raises
// AttributeError). Each sub-step touches one shared object: the lock, or
// the element. The kernel's array is a FakeWithinKernelCUDAArray around a
// FakeCUDAArray (kernel.py's fake_arg), whose __getitem__ and __setitem__
// are Python functions ending in numpy's element get or set, one C call:
// so every sub-step begins with a call whose RESUME checks the eval
// breaker, and a thread can lose the GIL between any two of them under
// every atomicity mode (gil-breaker included; the free-threaded builds
// make numpy's get and set no more atomic than one element access).
// Which of the five a method has, and what it stores, is writeValue's: the
// second read is there for add, sub, and_, or_, xor, nanmax, nanmin and
// inc's and dec's else arms; compare_and_swap and cas store only when the
// compare holds. With scenario.FixAtomicsOneLock every method holds one
// lock.
//
// # A shared array: FakeCUDAShared.array (kernelapi.py:132-136)
//
//	res = self._allocations.get(caller)       # get: one C call
//	if res is None:
//	    res = np.empty(shape, dtype)          # local (its CALL checks
//	                                          # the eval breaker)
//	    self._allocations[caller] = res       # store: STORE_SUBSCR
//	return res
//
// after LOAD_GLOBAL cuda; LOAD_ATTR shared. _allocations is the launch's
// (one FakeCUDAModule per launch, kernel.py), keyed by the call site. With
// scenario.FixSharedSetdefault the store is
// self._allocations.setdefault(caller, np.empty(shape, dtype)), one C
// call that stores only on a miss and returns what the dict holds.
//
// # A store or a load: s[i] = v, x = s[i]
//
// On the array the thread's shared.array at the site returned: a plain
// ndarray (np.empty), whose element set or get is one C call
// (STORE_SUBSCR, BINARY_SUBSCR), one step. Under gil-breaker the model
// lets another thread run after it, which CPython 3.11 does not (no
// eval-breaker check follows before the next statement): more
// interleavings than 3.11 runs, so what is verified holds, and a trace
// may show a switch there that 3.11 cannot make. Each thread keeps the
// array it holds from each site and the barriers it passed (its epoch);
// each element of an allocation keeps the array its last store went
// into, with the storing thread's epoch and block, which is all a load
// needs to tell whether it sees a store made before the barrier it
// passed (stale-read).
//
// # State
//
// An element is a slot; a lock is a slot, 1 while held (threading.Lock
// has no owner); an allocation is three slots per launch and site: the
// dict's entry (0: missing, else the number of the np.empty it holds),
// how many np.empty were stored (numbers are given in store order, so no
// thread identity enters the globals and the canonical key's symmetry
// holds), and handed, the array the first thread to get one got: a
// ghost the invariant reads, written only in the step that stores (a hit
// always finds handed set, since the store that made the entry set it).
// A GPU thread keeps its atomics' results in a block after its frames
// (memSlots): how many completed, the element's value a reread loaded,
// and each atomic's returned old, which the lost-update check reads once
// every thread has ended (check/memory.go).

// The sub-steps of an atomic (fSub).
const (
	atUse slot = iota
	atAcquire
	atRead
	atReread
	atWrite
	atRelease
)

// The sub-steps of a shared.array (fSub).
const (
	shUse slot = iota
	shGet
	shStore
)

// The thread's memory slots, after its frames: then, with stores or
// loads, the array it holds from each shared.array site (memHeld), then
// each atomic's old, in the order the thread runs them (memOld).
const (
	mDone  = iota // atomics completed
	mCur          // the element a reread loaded
	mEpoch        // the barriers (syncthreads) the thread passed
)

// An element's slots in an allocation (with stores or loads): the array
// the last store went into (0: none yet), the storing thread's epoch
// then, and its block (global numbering, 1-based).
const (
	elArr = iota
	elEpoch
	elBlock
	elemSlots
)

// The allocation's slots, per launch and site.
const (
	alEntry = iota
	alMade
	alHanded
	allocSlots
)

// atomicLocks names the module-level locks: FakeCUDAAtomic's, in order of
// first use in scenario.Atomics.
var atomicLocks []string

func init() {
	for o := scenario.AtomicAdd; o <= scenario.AtomicCas; o++ {
		name := o.Info().Lock
		found := false
		for _, l := range atomicLocks {
			found = found || l == name
		}
		if !found {
			atomicLocks = append(atomicLocks, name)
		}
	}
}

// lockOf is the index of the lock operation op holds.
func (pr *Program) lockOf(op scenario.AtomicOp) int {
	if pr.Scenario.Fixes&scenario.FixAtomicsOneLock != 0 {
		return 0
	}
	name := op.Info().Lock
	for i, l := range atomicLocks {
		if l == name {
			return i
		}
	}
	panic(fmt.Sprintf("model: atomic %s holds no known lock", op))
}

// lockName is the name of lock i, for traces.
func (pr *Program) lockName(i int) string {
	if pr.Scenario.Fixes&scenario.FixAtomicsOneLock != 0 {
		return "atomiclock"
	}
	return atomicLocks[i]
}

// writeValue is what an atomic's write stores, as its method computes it
// from old (its first read), cur (its reread, where it has one) and its
// arguments, and whether it stores at all.
func writeValue(op scenario.AtomicOp, old, cur, val, cmp int) (int, bool) {
	switch op {
	case scenario.AtomicAdd:
		return cur + val, true // array[index] += val
	case scenario.AtomicSub:
		return cur - val, true
	case scenario.AtomicAnd:
		return cur & val, true
	case scenario.AtomicOr:
		return cur | val, true
	case scenario.AtomicXor:
		return cur ^ val, true
	case scenario.AtomicInc:
		if old >= val {
			return 0, true
		}
		return cur + 1, true // array[index] += 1
	case scenario.AtomicDec:
		if old == 0 || old > val {
			return val, true
		}
		return cur - 1, true // array[index] -= 1
	case scenario.AtomicExch:
		return val, true
	case scenario.AtomicMax:
		return max(old, val), true // max(old, val)
	case scenario.AtomicMin:
		return min(old, val), true
	case scenario.AtomicNanmax:
		return max(cur, val), true // np.nanmax([array[index], val])
	case scenario.AtomicNanmin:
		return min(cur, val), true
	case scenario.AtomicCompareAndSwap, scenario.AtomicCas:
		return val, old == cmp // if loaded == old: array[index] = val
	}
	panic(fmt.Sprintf("model: unknown atomic operation %d", op))
}

// mem is the first of thread t's memory slots.
func (w *World) mem(t int) int { return w.thread(t) + w.p.lay.memBase }

// cell is the slot of st's element.
func (w *World) cell(st *stmt) int { return w.p.lay.cells[st.array] + st.index }

// alloc is the first slot of the allocation of thread t's launch at st's
// site.
func (w *World) alloc(t int, st *stmt) int {
	return w.p.lay.alloc + (w.p.threadLaunch[t]-1)*w.p.lay.launchAlloc + w.p.lay.siteOff[st.site]
}

// execAtomic is one sub-step of an atomic (sAtomic).
func (w *World) execAtomic(t, f int, cd *code, st *stmt) {
	sub := w.s[f+fSub]
	w.cache.ev.sub = int(sub)
	m, cell := w.mem(t), w.cell(st)
	lock := w.p.lay.opLock + st.lock
	next := sub + 1
	switch sub {
	case atUse:
		if !w.use(t, cd.module, st.arg) {
			return
		}
	case atAcquire:
		w.s[lock] = 1
		if w.Trace {
			w.effect("%s acquired", w.p.lockName(st.lock))
		}
	case atRead:
		old := w.s[cell]
		w.s[m+w.p.lay.memOld+st.seq] = old
		if w.Trace {
			w.effect("old = %s[%d] is %d", w.p.Scenario.Arrays[st.array].Name, st.index, old)
		}
		switch _, stores := writeValue(st.op, int(old), 0, st.val, st.cmp); {
		case st.op.Rereads(int(old), st.val):
			next = atReread
		case stores:
			next = atWrite
		default:
			next = atRelease
		}
	case atReread:
		w.cache.ev.alt = true
		w.s[m+mCur] = w.s[cell]
		if w.Trace {
			w.effect("%s[%d] is %d", w.p.Scenario.Arrays[st.array].Name, st.index, w.s[cell])
		}
	case atWrite:
		old := int(w.s[m+w.p.lay.memOld+st.seq])
		w.cache.ev.alt = st.op.Rereads(old, st.val)
		v, _ := writeValue(st.op, old, int(w.s[m+mCur]), st.val, st.cmp)
		w.s[cell] = slot(v)
		w.s[m+mCur] = 0
		if w.Trace {
			w.effect("%s[%d] = %d", w.p.Scenario.Arrays[st.array].Name, st.index, v)
		}
	case atRelease:
		w.s[lock] = 0
		w.s[m+mDone]++
		if w.Trace {
			w.effect("%s released; returns %d", w.p.lockName(st.lock), w.s[m+w.p.lay.memOld+st.seq])
		}
		w.nextStmt(f)
		return
	}
	w.s[f+fSub] = next
}

// execShared is one sub-step of a shared.array (sShared).
func (w *World) execShared(t, f int, cd *code, st *stmt) {
	sub := w.s[f+fSub]
	w.cache.ev.sub = int(sub)
	a := w.alloc(t, st)
	switch sub {
	case shUse:
		if !w.use(t, cd.module, st.arg) {
			return
		}
		w.s[f+fSub] = shGet
		return
	case shGet:
		if e := w.s[a+alEntry]; e != 0 {
			if w.Trace {
				w.effect("self._allocations.get(caller) is array #%d", e)
			}
			w.hand(t, f, st, a, e)
			return
		}
		if w.Trace {
			w.effect("self._allocations.get(caller) is None")
		}
		w.s[f+fSub] = shStore
		return
	}
	if w.s[a+alEntry] != 0 && w.p.Scenario.Fixes&scenario.FixSharedSetdefault != 0 {
		if w.Trace {
			w.effect("setdefault finds array #%d; the thread's np.empty is dropped", w.s[a+alEntry])
		}
		w.hand(t, f, st, a, w.s[a+alEntry])
		return
	}
	w.s[a+alMade]++
	w.s[a+alEntry] = w.s[a+alMade]
	if w.Trace {
		w.effect("self._allocations[caller] = array #%d (this thread's np.empty)", w.s[a+alEntry])
	}
	w.hand(t, f, st, a, w.s[a+alEntry])
}

// hand ends thread t's shared.array, which returns array e: the first
// array a thread of the launch got from the site is handed, and another
// one is the violation (EvSharedSplit).
func (w *World) hand(t, f int, st *stmt, a int, e slot) {
	if w.p.elements {
		w.s[w.mem(t)+w.p.lay.memHeld+st.site] = e
	}
	switch h := w.s[a+alHanded]; {
	case h == 0:
		w.s[a+alHanded] = e
	case h != e:
		w.cache.ev.Kind = EvSharedSplit
		w.cache.ev.Saw, w.cache.ev.Want = Value(e), Value(h)
		w.cache.ev.Aborted = w.s[w.thread(t)+tAbort] != 0
	}
	w.nextStmt(f)
}

// execElement is a store to or a load from a shared array (sStore,
// sLoad): numpy's element set or get on the array the thread's
// shared.array at st's site returned, one C call. A store notes which
// array it went into, and when (the thread's epoch, its block); a load
// after a barrier of a slot that another thread of its block stored to
// before the barrier, into another array, does not see that store
// (EvStaleRead).
func (w *World) execElement(t, f int, st *stmt) {
	if st.site < 0 {
		w.execArgElement(t, f, st)
		return
	}
	m := w.mem(t)
	held := w.s[m+w.p.lay.memHeld+st.site]
	el := w.alloc(t, st) + allocSlots + st.index*elemSlots
	epoch, block := w.s[m+mEpoch], slot(w.p.threadBlock[t]+1)
	name := w.p.siteName[st.site]
	if st.kind == sStore {
		w.s[el+elArr], w.s[el+elEpoch], w.s[el+elBlock] = held, epoch, block
		if w.Trace {
			w.effect("%s[%d] = %d, into array #%d", name, st.index, st.val, held)
		}
		w.nextStmt(f)
		return
	}
	if w.Trace {
		w.effect("reads %s[%d] of array #%d", name, st.index, held)
	}
	if last := w.s[el+elArr]; last != 0 && last != held && w.s[el+elBlock] == block && w.s[el+elEpoch] < epoch {
		w.cache.ev.Kind = EvStaleRead
		w.cache.ev.Saw, w.cache.ev.Want = Value(held), Value(last)
		w.cache.ev.Aborted = w.s[w.thread(t)+tAbort] != 0
	}
	w.nextStmt(f)
}

// execArgElement is a store to or a load from an element of a kernel
// argument: a[i] = v, x = a[i] on the FakeWithinKernelCUDAArray, whose
// __setitem__ and __getitem__ (kernel.py) end in numpy's element set or
// get: one step. A store counts as one of its thread's operations on the
// element (its history), which the lost-update check replays in order.
func (w *World) execArgElement(t, f int, st *stmt) {
	cell := w.cell(st)
	name := w.p.Scenario.Arrays[st.array].Name
	if st.kind == sStore {
		w.s[cell] = slot(st.val)
		w.s[w.mem(t)+mDone]++
		if w.Trace {
			w.effect("%s[%d] = %d", name, st.index, st.val)
		}
	} else if w.Trace {
		w.effect("%s[%d] is %d", name, st.index, w.s[cell])
	}
	w.nextStmt(f)
}

// inHistory: the statement is one of its thread's operations on a kernel
// array's element that the lost-update check reads (an atomic, a store).
func (st *stmt) inHistory() bool {
	return st.kind == sAtomic || st.kind == sStore && st.site < 0
}

// elementRow is the statement table's row of a store or a load (sStore,
// sLoad): one step, on the element.
func elementRow(name string) stmtKindRow {
	return stmtKindRow{
		name:      name,
		exec:      func(w *World, t, f int, cd *code, st *stmt) { w.execElement(t, f, st) },
		footprint: elementFootprint,
		future:    futureElement,
		describe:  describeElement,
		raisable:  func(slot) bool { return true },
	}
}

// describeElement names a store's or a load's bytecode: numpy's element
// set or get, on a kernel array through FakeWithinKernelCUDAArray.
func describeElement(p *Program, ev *Event, cd *code, st *stmt) {
	how := map[stmtKind]string{sStore: "STORE_SUBSCR (%snumpy's element set)", sLoad: "BINARY_SUBSCR (%snumpy's element get)"}[st.kind]
	through := ""
	if st.site < 0 {
		through = map[stmtKind]string{sStore: "FakeWithinKernelCUDAArray.__setitem__: ", sLoad: "FakeWithinKernelCUDAArray.__getitem__: "}[st.kind]
	}
	if st.kind == sStore {
		ev.Bytecode = "LOAD_CONST; LOAD_FAST; LOAD_CONST; " + fmt.Sprintf(how, through)
		return
	}
	ev.Bytecode = "LOAD_FAST; LOAD_CONST; " + fmt.Sprintf(how, through) + "; STORE_FAST"
}

// elementFootprint: a store writes, a load reads the allocation the
// thread's launch made at st's site, or the kernel array's element.
func elementFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	return elementAccess(w.p, (f-w.p.lay.threads)/w.p.lay.threadSize, st)
}

func futureElement(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	sc.step(futStep{fp: elementAccess(sc.w.p, t, st)})
}

// elementAccess is the footprint of thread t's store or load st.
func elementAccess(p *Program, t int, st *stmt) sched.Footprint {
	fp := sched.Footprint{Object: p.elementObject(t, st), Access: sched.Read}
	if st.kind == sStore {
		fp.Access = sched.Write
	}
	return fp
}

func atomicFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	l := &w.p.lay
	switch w.s[f+fSub] {
	case atUse:
		return sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}
	case atAcquire:
		return sched.Footprint{Object: l.objOpLock + st.lock, Access: sched.Write, MayBlock: true}
	case atRead, atReread:
		return sched.Footprint{Object: l.objCell + w.cell(st) - l.cells[0], Access: sched.Read}
	case atWrite:
		return sched.Footprint{Object: l.objCell + w.cell(st) - l.cells[0], Access: sched.Write}
	}
	return sched.Footprint{Object: l.objOpLock + st.lock, Access: sched.Write}
}

func futureAtomic(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	l := &sc.w.p.lay
	if b != from || sub < 0 {
		sub = int(atUse)
	}
	cellObj := l.objCell + sc.w.cell(st) - l.cells[0]
	steps := []futStep{
		atUse:     {fp: sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}},
		atAcquire: {fp: sched.Footprint{Object: l.objOpLock + st.lock, Access: sched.Write}},
		atRead:    {fp: sched.Footprint{Object: cellObj, Access: sched.Read}},
		atReread:  {fp: sched.Footprint{Object: cellObj, Access: sched.Read}},
		atWrite:   {fp: sched.Footprint{Object: cellObj, Access: sched.Write}},
		atRelease: {fp: sched.Footprint{Object: l.objOpLock + st.lock, Access: sched.Write}},
	}
	for _, s := range steps[sub:] { // a step that may not come errs on the side of a conflict
		sc.step(s)
	}
}

func sharedFootprint(w *World, f int, cd *code, st *stmt) sched.Footprint {
	l := &w.p.lay
	switch w.s[f+fSub] {
	case shUse:
		return sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}
	case shGet:
		return sched.Footprint{Object: w.allocObject(f, st), Access: sched.Read}
	}
	return sched.Footprint{Object: w.allocObject(f, st), Access: sched.Write}
}

// allocObject is the object of the allocation frame f's thread's
// statement st reaches: its launch's, at its site.
func (w *World) allocObject(f int, st *stmt) int {
	return w.p.allocObjectOf((f-w.p.lay.threads)/w.p.lay.threadSize, st)
}

// allocObjectOf is the object of the allocation thread t's statement st
// reaches.
func (p *Program) allocObjectOf(t int, st *stmt) int {
	return p.lay.objAlloc + (p.threadLaunch[t]-1)*p.sharedSites + st.site
}

// elementObject is the object a store or a load of thread t touches: the
// kernel array's element, or the allocation at its site.
func (p *Program) elementObject(t int, st *stmt) int {
	if st.site < 0 {
		return p.lay.objCell + p.lay.cells[st.array] + st.index - p.lay.cells[0]
	}
	return p.allocObjectOf(t, st)
}

func futureShared(sc *futureScan, t int, cd *code, b, from, sub int, st *stmt) {
	l := &sc.w.p.lay
	if b != from || sub < 0 {
		sub = int(shUse)
	}
	obj := sc.w.p.allocObjectOf(t, st)
	steps := []futStep{
		shUse:   {fp: sched.Footprint{Object: l.objGlobals + cd.module, Access: sched.Read}},
		shGet:   {fp: sched.Footprint{Object: obj, Access: sched.Read}},
		shStore: {fp: sched.Footprint{Object: obj, Access: sched.Write}},
	}
	for _, s := range steps[sub:] {
		sc.step(s)
	}
}

// atomicLine is the line (an offset from the def's) and text of an
// atomic's sub-step after the use; alt: the method's else arm.
func atomicLine(op scenario.AtomicOp, sub slot, alt bool) (int, string) {
	old := "old"
	if op == scenario.AtomicCompareAndSwap || op == scenario.AtomicCas {
		old = "loaded"
	}
	read, write, ret := 2, 3, 4
	text := "array[index] = val"
	switch op {
	case scenario.AtomicAdd, scenario.AtomicSub, scenario.AtomicAnd, scenario.AtomicOr, scenario.AtomicXor:
		text = "array[index] " + map[scenario.AtomicOp]string{scenario.AtomicAdd: "+", scenario.AtomicSub: "-", scenario.AtomicAnd: "&", scenario.AtomicOr: "|", scenario.AtomicXor: "^"}[op] + "= val"
	case scenario.AtomicInc, scenario.AtomicDec:
		write, ret, text = 4, 7, map[bool]string{false: "array[index] = 0", true: "array[index] += 1"}[alt]
		if op == scenario.AtomicDec {
			text = map[bool]string{false: "array[index] = val", true: "array[index] -= 1"}[alt]
		}
		if alt {
			write = 6
		}
	case scenario.AtomicMax, scenario.AtomicMin:
		text = "array[index] = " + op.String() + "(old, val)"
	case scenario.AtomicNanmax, scenario.AtomicNanmin:
		text = "array[index] = np." + op.String() + "([array[index], val])"
	case scenario.AtomicCompareAndSwap:
		read, write, ret = 3, 5, 6
	case scenario.AtomicCas:
		write, ret = 4, 5
	}
	switch sub {
	case atAcquire:
		return 1, "with %s:"
	case atRead:
		return read, old + " = array[index]"
	case atReread:
		return write, text + "  # its read of array[index]"
	case atWrite:
		return write, text
	}
	return ret, "return " + old + "  # the with's exit releases %s"
}

// atomicBytecodes are the bytecodes of an atomic's sub-steps after the use.
var atomicBytecodes = [...]string{
	atAcquire: "BEFORE_WITH (%s.__enter__)",
	atRead:    "BINARY_SUBSCR (FakeWithinKernelCUDAArray.__getitem__)",
	atReread:  "BINARY_SUBSCR (FakeWithinKernelCUDAArray.__getitem__)",
	atWrite:   "STORE_SUBSCR (FakeWithinKernelCUDAArray.__setitem__)",
	atRelease: "CALL (%s.__exit__)",
}

func describeAtomic(p *Program, ev *Event, cd *code, st *stmt) {
	if ev.sub == int(atUse) {
		ev.Bytecode = "LOAD_GLOBAL; LOAD_ATTR atomic; LOAD_ATTR " + st.op.String()
		ev.Name = p.Scenario.Modules[cd.module].Names[st.arg]
		return
	}
	info := st.op.Info()
	off, text := atomicLine(st.op, slot(ev.sub), ev.alt)
	bytecode := atomicBytecodes[ev.sub]
	switch slot(ev.sub) {
	case atAcquire, atRelease:
		text, bytecode = fmt.Sprintf(text, p.lockName(st.lock)), fmt.Sprintf(bytecode, p.lockName(st.lock))
	}
	line := info.Line + off
	ev.Where, ev.Line, ev.Text, ev.Bytecode = fmt.Sprintf("kernelapi.py:%d", line), line, "FakeCUDAAtomic."+info.Name+": "+text, bytecode
}

// sharedLines are the texts of a shared.array's sub-steps after the use:
// its lines at numba-cuda HEAD.
var sharedLines = [...]struct {
	line           int
	text, bytecode string
}{
	shGet:   {132, "res = self._allocations.get(caller)", "CALL (dict.get)"},
	shStore: {135, "self._allocations[caller] = res", "STORE_SUBSCR (dict)"},
}

func describeShared(p *Program, ev *Event, cd *code, st *stmt) {
	if ev.sub == int(shUse) {
		ev.Bytecode = "LOAD_GLOBAL; LOAD_ATTR shared; LOAD_ATTR array"
		ev.Name = p.Scenario.Modules[cd.module].Names[st.arg]
		return
	}
	l := sharedLines[ev.sub]
	text, bytecode := l.text, l.bytecode
	if slot(ev.sub) == shStore && p.Scenario.Fixes&scenario.FixSharedSetdefault != 0 {
		text, bytecode = "res = self._allocations.setdefault(caller, np.empty(shape, dtype))  # fixed", "CALL (dict.setdefault)"
	}
	ev.Where, ev.Line, ev.Text, ev.Bytecode = fmt.Sprintf("kernelapi.py:%d", l.line), l.line, "FakeCUDAShared.array: "+text, bytecode
}

// AtomicCall is one atomic a GPU thread completed: its operation, element
// and arguments, and the old value it returned.
type AtomicCall struct {
	Op              scenario.AtomicOp
	Array, Index    int
	Value, Cmp, Old int
	// Store: a plain store of Value (a[i] = v), which returns nothing
	Store bool
}

// Apply is what the call leaves in an element that held old, as if alone.
func (c AtomicCall) Apply(old int) int {
	if c.Store {
		return c.Value
	}
	if v, stores := c.Op.Apply(old, c.Value, c.Cmp); stores {
		return v
	}
	return old
}

// AtomicCalls are the atomics thread t completed and the stores to kernel
// arrays it made, in its order.
func (w *World) AtomicCalls(t int) []AtomicCall {
	w.sync()
	if w.p.isHost(t) || t == w.p.signal || t == w.p.raiser || w.p.lay.memSlots == 0 {
		return nil
	}
	m := w.mem(t)
	done := int(w.s[m+mDone])
	var out []AtomicCall
	for _, st := range w.p.codes[w.p.threadCode[t]].stmts {
		if !st.inHistory() || len(out) == done {
			continue
		}
		if st.kind == sStore {
			out = append(out, AtomicCall{Store: true, Array: st.array, Index: st.index, Value: st.val})
			continue
		}
		out = append(out, AtomicCall{Op: st.op, Array: st.array, Index: st.index, Value: st.val, Cmp: st.cmp, Old: int(w.s[m+w.p.lay.memOld+st.seq])})
	}
	return out
}

// Element is element i of the kernel's array a.
func (w *World) Element(a, i int) int {
	w.sync()
	return int(w.s[w.p.lay.cells[a]+i])
}
