package model

import (
	"bytes"

	"swapcheck/sched"
)

// Futures, for sched.POR: what a thread may still touch from the current
// state on, and which threads can unblock a blocked one. Nothing here is
// state or changes the World; it reads the vector and the program.
//
// # Which steps depend on which (the rule per operation)
//
// A step's footprint (objectFootprint) names the finest object that
// decides it. Two steps of different threads are dependent when they name
// the same object and one writes it, and as the group rules below say:
//
//	operation                                 object                    access
//	cuda.X in a body (sUse)                   the module's globals      read
//	globals.items() pass, fn_globs[k] = v,    the module's globals      read / write
//	  fn_globs.update(...)
//	_globals_locks[gid] (get, miss, del)      that module's entry       write
//	_swap_refcount[gid], _swap_state[gid]     that module's entry       write
//	_swap_orig[gid]                           that module's entry       write
//	with lock: (acquire, release)             that one lock             write
//	with _locks_register_lock / _swap_lock    the global lock           write
//	call: _get_kernel_context()               the kernel context        read
//	_kernel_context = ... (host)              the kernel context        write
//	imports, locals, yield, for over a        nothing                   local
//	  local dict, syncthreads' flags
//
// One module's globals are one object: a dict.update or a comprehension
// over items() reads or writes several keys at once. A registry is split
// by key: its operations each name one gid, and the model keeps each key's
// entry apart (no operation reads a registry's length or iterates it), so
// operations on different keys commute. They do in both builds: under the
// GIL each is one atomic C call; in free-threaded CPython (3.13t, 3.14t)
// each holds the dict's per-object lock while it runs, which serialises
// two operations on one dict but does not make their order matter when
// their keys differ (each reads and writes only its own key's entry, and a
// resize changes no value another key's operation sees). The one
// free-threaded operation that is not atomic, a defaultdict miss, is two
// steps on its key's entry (lookup, then __missing__), each a write.
//
// The group rules: a GPU thread's step that ends its thread, kills it or
// changes its barrier flags (a "loud" step: syncthreads' sub-steps, an
// exception that leaves the kernel, the kernel's last step) depends on
// the host's poll of its block, which reads and writes those flags; its
// other steps (quiet) commute with the poll. The host's start of a thread
// commutes with every step but the started thread's, which cannot run
// before it.
//
// # Futures
//
// A thread's future is every step its code can still take, found by
// walking its frames from the innermost out: the rest of each protocol
// listing from the frame's pc (jumps go forward, or back to a local loop
// head whose loop is all at or after the pc, so the rest of the listing
// covers every path), the rest of each with-body, and every device call
// in it with the callee's whole listing and body. The walk stops where
// the thread cannot go on while the frozen threads stay put: at an
// acquire of a lock a frozen thread holds (only the owner releases a
// lock), at a barrier wait when the host, the only thread that releases
// the barrier, is frozen, and, for a thread not started, at once when the
// host is frozen. A lock not fetched yet is the module's registry entry
// when the protocol never deletes entries (Protocol.KeepsLockEntries) and
// the build's defaultdict miss keeps an entry another thread stored (all
// builds but free-threaded-overwrite); otherwise it is any lock of the
// module's pool.

// # Exceptions
//
// A cut stops a future only where the thread cannot get past it, and an
// exception takes a thread past cuts: a GPU thread that raises in a
// with-body runs the exits of its frames (the swap's finally, its lock
// and its registries) without the barrier or the lock acquire that stood
// later in its body; a host that raises leaves its call or launch and
// goes on with its next statement. A thread may raise and the execution
// go on when the caller does not fail deaths (MayConflict's deathsFail
// false), when the scenario raises (Program.raises: a raise statement, a
// host's condition, a raise fault), and with an interrupt: host 0 takes
// it, and the threads of the launch it leaves are orphaned, whose uses
// of the real module are after-failure violations that check's default
// scope steps past. For such a thread, once its first step can run,
// every later step of its walk counts as reachable: the segments after
// the first step's merge into one. The cuts before its first step still
// hold, since a thread raises only at a step of its own, but for a
// fault: a raise fault's fall (RAISE's move) and, in host 0, an
// interrupt's landing (SIGINT's) raise where the thread stands, so such
// a cut holds only while those pseudo-threads are frozen too
// (futCut.faults). In the worlds with raises or faults this gives up
// what cuts after the first step reduced; following each exception's
// own path (the exception table's handlers, the exits, the host's next
// statement) would keep some of it.

// # Pinned modules
//
// A protocol whose count guards its globals (Protocol.CountGuardsGlobals:
// merged's family) writes a module's globals only where
// _swap_refcount[gid] reads 0 under the module's lock. When every thread
// takes that one lock (the module's registry entry, which no thread
// deletes or overwrites: predictedLock), the count changes by one
// increment or decrement at a time, in some order. A thread that has
// stored its increment and not yet its decrement holds a reference; a
// thread that runs may take back at most the references it holds before
// it adds one (each new with-statement increments before it decrements).
// So while the frozen threads stay put the count never falls below its
// value now less the references the other threads hold; when that is at
// least 1 the module is pinned: no other thread writes its globals, and a
// read of them (a use of cuda, a branch's condition, syncthreads' load)
// commutes with every step of theirs. The writes a future walk meets
// there are guarded writes (futSeg.gwrites), which conflict with a read
// of a pinned module's globals no more.
//
// A protocol whose state entry guards its globals
// (Protocol.StateGuardsGlobals: global-lock) counts the references in
// _swap_state[gid] (refcount + 1 while the entry is there), changes it
// only under the one global lock, and writes a module's globals only
// where the writer holds the one reference the entry counts (checked as
// it runs: ctx.go). A thread's stores change the count by one exactly
// where its reference starts or ends (Protocol.holds), and an exception
// can end a reference without its store, never the reverse; so, as
// above, the count less the references the other threads hold does not
// fall while the frozen threads stay put, and when it is at least 1 no
// other thread can be the writer holding the only reference. With an
// interrupt or a raise fault the rule is not used: a generator an
// interrupt leaves suspended holds its reference outside the frames the
// count is taken over.
//
// A protocol that stores Dispatch over the real module
// (Protocol.StoresDispatchOverReal: proposed) pins a module once none of
// its globals is the real module: every later write of them stores
// Dispatch where Dispatch already is, which changes nothing a read sees,
// so the read commutes with it.

// # Several hosts
//
// Each host starts its own launches' threads, releases their barriers and
// alone polls their blocks (hostOf), so the group rules above hold per
// host. A host's steps that read the module-level kernel context before a
// launch (FakeCUDAKernel.__call__'s test and _push_kernel_context's
// assert) read the kernel context; the kernel run inline reads it and
// calls the kernel's code. When a host skips its launch it ends the
// launch's threads, which have not started: they were not runnable, and
// their futures stop where their host is frozen.

// futuresKnown reports whether the rules above bound this program's
// futures. They assume that a step enables or disables no other thread's
// step but as the group rules say, and the faults' rules
// (reduce_faults.go) say how an interrupt and a raise fault do. Under
// GILBreaker they hold of macro steps (see "Macro steps") without
// faults; with a fault there, a thread that keeps the GIL decides which
// thread can fall and where the interrupt lands, which the rules do not
// cover: every thread may conflict with every other and POR expands
// every state fully, sound and as costly as States.
func (p *Program) futuresKnown() bool {
	return p.signal < 0 && p.raiser < 0 || !p.Atomicity.BreakerOnly()
}

// FuturesKnown reports whether POR's persistent sets can reduce this
// program's search: where they cannot, every state is expanded fully.
func (p *Program) FuturesKnown() bool { return p.futuresKnown() }

// hostOf is the host that starts thread t, releases its barrier and polls
// its block (t itself for a host, Host for a fault's pseudo-thread):
// launch l is host (l-1)/Launches's.
func (p *Program) hostOf(t int) int {
	switch {
	case p.isHost(t):
		return t
	case p.threadLaunch[t] < 1:
		return Host
	}
	return (p.threadLaunch[t] - 1) / p.Scenario.Launches
}

// futStep is one step of a thread's future.
type futStep struct {
	fp sched.Footprint
	// anyLockOf, when not 0, is 1 + the module whose lock, not known yet,
	// the step acquires or releases (fp is then unused)
	anyLockOf int
	// poll, when not 0, is 1 + the block whose poll it is (the host's)
	poll int
	// unknown: a step whose footprint is not known, dependent with all
	unknown bool
	// guarded: a write of a module's globals that only a zero count lets
	// run (see Pinned modules)
	guarded bool
}

// futCut is a place where a thread's future stops when some threads are
// frozen: before an acquire of a lock (cutLock, arg the lock) when its
// owner is frozen; at a barrier wait or before its start (cutHost, arg
// the thread's host) when that host is frozen; before the host's poll of
// a block (cutPoll, arg the block) when pollHeld says so.
type futCut struct {
	kind uint8
	arg  int
	// faults: the fault pseudo-threads (byInterrupt, byRaise) whose move
	// can make the thread raise where it stands, past the cut: the cut
	// holds only while they are frozen too (see Exceptions)
	faults uint8
}

const (
	cutNone uint8 = iota
	cutLock
	cutHost
	cutPoll
)

// futCut.faults
const (
	byInterrupt uint8 = 1 << iota
	byRaise
)

// futSeg is the part of a thread's future between two cuts: the cut
// before it, and what its steps touch.
type futSeg struct {
	cut     futCut
	steps   int
	unknown bool
	// reads and writes are bitsets of objects; anyLock of modules whose
	// lock, not known yet, a step takes; polls of blocks polled; gwrites
	// the guarded writes (see Pinned modules)
	reads, writes, gwrites []uint64
	anyLock, polls         uint64
}

// futures is every thread's future at one state, cut into segments: a
// goroutine's scratch (UseFuturesScratch), or the Program's, whose
// vector's bytes are key (see World.futures).
type futures struct {
	key      []byte // the vector's bytes (KeyView), for the Program's
	fresh    bool   // made for the state, for a scratch (UseFuturesScratch)
	noDeaths bool
	threads  [][]futSeg
	made     []bool
	// fps[t] is thread t's next step's objectFootprint, where fpMade[t]:
	// a closure asks MayConflict of one p against every other thread
	// (objectFootprint was a fifth of BenchmarkPORMergedWide's profile)
	fps    []sched.Footprint
	fpMade []bool
	// macros[t] is thread t's macro step under GILBreaker (see "Macro
	// steps"), where macroMade[t]; macroOK[t]: it is known
	macros    [][]pStep
	macroMade []bool
	macroOK   []bool
	// quiets[t] is 1 when thread t's next step is quiet, -1 when it is
	// loud, 0 when not asked yet (World.quiet runs the step on a copy,
	// quietW: asked once a state, not once a pair, with raiserArms and
	// raisable likewise, BenchmarkPORFaults in package check went from
	// 3.8-4.3 s a search to 1.0-1.05 s, three runs each); arms is 1 +
	// raiserArms, 0 when not asked yet
	quiets []int8
	arms   int8
	// raisables[t] is 1 + raisable(t), 0 when not asked yet
	raisables []int8
	// quietW is the copy quiet runs steps on
	quietW   World
	objWords int
	// memo holds every future made, by what its walk reads (scanKey):
	// threads of many states stand where they stood in another
	// (BenchmarkPORMerged in package check: 0.16 s a search with it,
	// 0.86 s without, medians of 6 interleaved runs of 5).
	memo   map[string][]futSeg
	keyBuf []byte
}

// futureScan records one thread's future into segments.
type futureScan struct {
	w    *World
	segs []futSeg
	// noDeaths: no thread dies in an execution that has not failed (see
	// MayConflict), so a block's poll runs only once each of its threads
	// is done or waits at the barrier
	noDeaths bool
	words    int
}

// cut starts a new segment behind cut c. Every walk makes segments of its
// own: futures.memo keeps them for good.
func (sc *futureScan) cut(c futCut) {
	sc.segs = append(sc.segs, futSeg{cut: c, reads: make([]uint64, sc.words), writes: make([]uint64, sc.words), gwrites: make([]uint64, sc.words)})
}

// step adds st to the current segment.
func (sc *futureScan) step(st futStep) {
	g := &sc.segs[len(sc.segs)-1]
	g.steps++
	switch {
	case st.unknown:
		g.unknown = true
	case st.anyLockOf != 0:
		g.anyLock |= 1 << (st.anyLockOf - 1)
	case st.poll != 0:
		g.polls |= 1 << (st.poll - 1)
	case st.guarded:
		g.gwrites[st.fp.Object/64] |= 1 << (st.fp.Object % 64)
	case st.fp.Access == sched.Read:
		g.reads[st.fp.Object/64] |= 1 << (st.fp.Object % 64)
	case st.fp.Access == sched.Write:
		g.writes[st.fp.Object/64] |= 1 << (st.fp.Object % 64)
	}
}

// holds reports whether cut c stops a thread while the frozen threads
// take no step.
func (f *futures) holds(w *World, c futCut, frozen []bool) bool {
	if c.faults&byInterrupt != 0 && !frozen[w.p.signal] || c.faults&byRaise != 0 && !frozen[w.p.raiser] {
		return false
	}
	switch c.kind {
	case cutLock:
		o := int(w.s[w.p.lay.lockOwner+c.arg]) - 1
		return o >= 0 && frozen[o]
	case cutHost:
		return frozen[c.arg]
	case cutPoll:
		// no thread dies, and a frozen thread of the block is neither
		// done nor waiting at the barrier
		for _, u := range w.p.blockThreads[c.arg] {
			b := w.thread(u)
			if frozen[u] && w.s[b+tStatus] != finished && w.s[b+tBlocked] == 0 {
				return true
			}
		}
	}
	return false
}

// predictedLock is the lock a fetch of module m's lock not yet made will
// return, or 0 when that is not known.
func (w *World) predictedLock(m int) LockRef {
	if !w.p.Protocol.KeepsLockEntries() || w.p.Atomicity.overwrite() {
		return 0
	}
	return LockRef(w.s[w.p.lay.lockReg+m])
}

// instrs walks instructions [from, to) of a frame of module m whose lock
// is lock (0: not fetched yet).
func (sc *futureScan) instrs(m, from, to int, lock LockRef) {
	l := &sc.w.p.lay
	code := sc.w.p.Protocol.Code
	for i := max(from, 0); i < to; i++ {
		in := &code[i]
		var obj int
		switch in.Object {
		case Globals:
			obj = l.objGlobals + m
			if in.Access == sched.Write && (sc.w.p.Protocol.GuardsGlobals() || sc.w.p.Protocol.StoresDispatchOverReal) {
				sc.step(futStep{fp: sched.Footprint{Object: obj, Access: sched.Write}, guarded: true})
				continue
			}
		case LockRegistry:
			obj = l.objLockReg + m
		case CountRegistry:
			obj = l.objCount + m
		case SavedRegistry:
			obj = l.objOrig + m
		case GlobalLock:
			if in.Ready != nil {
				sc.cut(futCut{kind: cutLock, arg: int(GlobalLockRef)})
			}
			obj = l.objLock + int(GlobalLockRef)
		case ModuleLock:
			r := lock
			if r == 0 {
				r = sc.w.predictedLock(m)
			}
			if r == 0 {
				sc.step(futStep{anyLockOf: 1 + m})
				continue
			}
			if in.Ready != nil {
				sc.cut(futCut{kind: cutLock, arg: int(r)})
			}
			obj = l.objLock + int(r)
		default:
			continue
		}
		sc.step(futStep{fp: sched.Footprint{Object: obj, Access: in.Access}})
	}
}

// call walks a with swapped_cuda_module(...) for code c not yet entered.
func (sc *futureScan) call(t, c int) {
	p := sc.w.p
	m := p.codes[c].module
	y := p.Protocol.yield
	sc.instrs(m, 0, y, 0)
	sc.stmts(t, c, 0, -1)
	sc.instrs(m, y+1, len(p.Protocol.Code), 0)
}

// stmts walks code c's statements from from on; sub is the sub-step the
// first is at (-1: a statement not started). Each statement's steps are
// its row's (stmts.go).
func (sc *futureScan) stmts(t, c, from, sub int) {
	cd := &sc.w.p.codes[c]
	for b := from; b < len(cd.stmts); b++ {
		st := &cd.stmts[b]
		future := rowOf(st).future
		if future == nil { // a statement with no row for it: it may touch anything
			sc.step(futStep{unknown: true})
			continue
		}
		future(sc, t, cd, b, from, sub, st)
	}
}

// thread records thread t's future: its walk, then, for a thread that
// may raise, what an exception lets it reach past a cut (see
// Exceptions).
func (sc *futureScan) thread(t int) {
	sc.walk(t)
	w := sc.w
	if sc.noDeaths && w.p.signal < 0 || debug.cutsHoldPastRaises {
		return
	}
	first := 0
	for first < len(sc.segs) && sc.segs[first].steps == 0 && !sc.segs[first].unknown {
		first++
	}
	if first == len(sc.segs) {
		return
	}
	g := &sc.segs[first]
	for _, h := range sc.segs[first+1:] {
		g.steps += h.steps
		g.unknown = g.unknown || h.unknown
		g.anyLock |= h.anyLock
		g.polls |= h.polls
		for i := range g.reads {
			g.reads[i] |= h.reads[i]
			g.writes[i] |= h.writes[i]
			g.gwrites[i] |= h.gwrites[i]
		}
	}
	sc.segs = sc.segs[:first+1]
	if w.s[w.thread(t)+tStatus] != alive {
		return // not started: no fault reaches it before its host starts it
	}
	var faults uint8
	if w.p.raiser >= 0 {
		faults |= byRaise
	}
	if t == Host && w.p.signal >= 0 {
		faults |= byInterrupt
	}
	for i := range sc.segs {
		sc.segs[i].cut.faults = faults
	}
}

// walk records thread t's future as its code runs with no exception.
func (sc *futureScan) walk(t int) {
	w := sc.w
	sc.cut(futCut{})
	base := w.thread(t)
	switch w.s[base+tStatus] {
	case finished:
		return
	case notStarted:
		sc.cut(futCut{kind: cutHost, arg: w.p.hostOf(t)})
		sc.stmts(t, w.p.threadCode[t], 0, -1)
		return
	}
	y := w.p.Protocol.yield
	end := len(w.p.Protocol.Code)
	if d := int(w.s[base+tDeferred]); d > 0 {
		// the generator an interrupt left suspended at its yield: its
		// finally runs where the exception dies (reduce_faults.go)
		f := base + tFrames + (d-1)*frameSize
		sc.instrs(w.p.codes[w.s[f+fCode]].module, y+1, end, LockRef(w.s[f+fLock]))
	}
	depth := int(w.s[base+tDepth])
	for d := depth - 1; d >= 0; d-- {
		f := base + tFrames + d*frameSize
		c := int(w.s[f+fCode])
		m := w.p.codes[c].module
		pc := int(w.s[f+fPC])
		lock := LockRef(w.s[f+fLock])
		switch {
		case w.s[f+fInBody] == 1:
			from, sub := int(w.s[f+fBody]), int(w.s[f+fSub])
			if d < depth-1 { // its call statement is running in the frame above
				from, sub = from+1, -1
			}
			sc.stmts(t, c, from, sub)
			if pc >= 0 {
				sc.instrs(m, y+1, end, lock)
			}
		case pc <= y: // (at the yield: the host stopped at a landing there)
			sc.instrs(m, pc, y, lock)
			sc.stmts(t, c, 0, -1)
			sc.instrs(m, y+1, end, lock)
		default:
			sc.instrs(m, pc, end, lock)
		}
	}
}

// futures is every thread's future at w's state, each made when first
// asked for. It keeps the last one it made, for the state whose vector it
// was made from: the closure of a persistent set asks MayConflict of one
// state many times over. It is the scratch UseFuturesScratch gave w,
// which holds the futures of w's state as it was then; or, if none, the
// Program's, which the World's clones share, and which is checked against
// w's vector on every call: two goroutines asking at once of one program
// with no scratch of their own would race.
func (w *World) futures(deathsFail bool) *futures {
	w.sync()
	noDeaths := deathsFail && !w.p.raises
	f := w.cache.fut
	if f == nil {
		if w.p.fut == nil {
			w.p.fut = w.NewFuturesScratch().(*futures)
		}
		f = w.p.fut
		if f.key != nil && f.noDeaths == noDeaths && bytes.Equal(f.key, w.KeyView()) {
			return f
		}
		f.key = append(f.key[:0], w.KeyView()...)
	} else if f.fresh && f.noDeaths == noDeaths {
		return f
	}
	f.fresh = true
	f.noDeaths = noDeaths
	n := w.p.NumThreads()
	for len(f.threads) < n {
		f.threads = append(f.threads, nil)
		f.made = append(f.made, false)
		f.fps = append(f.fps, sched.Footprint{})
		f.fpMade = append(f.fpMade, false)
		f.macros = append(f.macros, nil)
		f.macroMade = append(f.macroMade, false)
		f.macroOK = append(f.macroOK, false)
		f.quiets = append(f.quiets, 0)
		f.raisables = append(f.raisables, 0)
	}
	clear(f.made)
	clear(f.fpMade)
	clear(f.macroMade)
	clear(f.quiets)
	clear(f.raisables)
	f.arms = 0
	return f
}

// NewFuturesScratch implements sched.Futures: a futures memo of
// its own for one goroutine (see futures).
func (w *World) NewFuturesScratch() any {
	return &futures{objWords: (w.p.NumObjects() + 63) / 64}
}

// UseFuturesScratch implements sched.Futures: w's MayConflict and
// AppendEnablers use x, made by NewFuturesScratch of a world of the same
// program, for w's state as it is now: x forgets the futures it held,
// and w must not change until it is given a scratch again. Clone and
// CopyFrom do not pass it on.
func (w *World) UseFuturesScratch(x any) {
	w.cache.fut = x.(*futures)
	w.cache.fut.fresh = false
}

// thread is thread t's future, in segments.
func (f *futures) thread(w *World, t int) []futSeg {
	if !f.made[t] {
		f.keyBuf = f.scanKey(w, t, f.keyBuf[:0])
		segs, ok := f.memo[string(f.keyBuf)]
		if !ok {
			sc := futureScan{w: w, noDeaths: f.noDeaths, words: f.objWords}
			sc.thread(t)
			segs = sc.segs
			if f.memo == nil {
				f.memo = make(map[string][]futSeg)
			}
			f.memo[string(f.keyBuf)] = segs
		}
		f.threads[t], f.made[t] = segs, true
	}
	return f.threads[t]
}

// scanKey appends to buf all that futureScan.thread reads of w for
// thread t: the thread's number (its code), status, barrier event,
// frames and the generator an interrupt left suspended, every module's
// lock entry (predictedLock) and noDeaths. Two
// states alike in these have the same future for t.
func (f *futures) scanKey(w *World, t int, buf []byte) []byte {
	put := func(v slot) { buf = append(buf, byte(v), byte(v>>8)) }
	put(slot(t))
	if f.noDeaths {
		put(1)
	} else {
		put(0)
	}
	base := w.thread(t)
	put(w.s[base+tStatus])
	put(w.s[base+tEvent])
	put(w.s[base+tDeferred])
	depth := int(w.s[base+tDepth])
	put(slot(depth))
	for d := range max(depth, int(w.s[base+tDeferred])) {
		fr := base + tFrames + d*frameSize
		for _, field := range [...]int{fCode, fPC, fBody, fInBody, fSub, fLock} {
			put(w.s[fr+field])
		}
	}
	l := &w.p.lay
	for m := range len(w.p.Scenario.Modules) {
		put(w.s[l.lockReg+m])
	}
	return buf
}

// pinned reports whether module m is pinned while the frozen threads
// take no step (see Pinned modules).
func (w *World) pinned(m int, frozen []bool) bool {
	p := w.p.Protocol
	if debug.brokenPin {
		return p.GuardsGlobals() || p.StoresDispatchOverReal
	}
	if p.StoresDispatchOverReal {
		for i := range w.p.lay.globalsLen[m] {
			if Value(w.s[w.p.lay.globals[m]+i]) == Real {
				return false
			}
		}
		return true
	}
	var lock LockRef
	switch {
	case p.CountGuardsGlobals:
		if lock = w.predictedLock(m); lock == 0 {
			return false
		}
	case p.StateGuardsGlobals:
		// every change of the state entry holds the one global lock; a
		// thread an interrupt or a raise fault stops holds its reference
		// where the frames below do not show it
		if w.p.signal >= 0 || w.p.raiser >= 0 {
			return false
		}
	default:
		return false
	}
	l := &w.p.lay
	count := 0 // the references the registry counts
	if w.s[l.countP+m] != 0 {
		count = int(w.s[l.count+m])
		if p.StateGuardsGlobals {
			count++ // refcount counts the entrants after the first
		}
	}
	for u := range w.p.NumThreads() {
		if frozen[u] {
			continue
		}
		base := w.thread(u)
		if w.s[base+tStatus] != alive {
			continue
		}
		for d := range int(w.s[base+tDepth]) {
			f := base + tFrames + d*frameSize
			if w.p.codes[w.s[f+fCode]].module != m {
				continue
			}
			if r := LockRef(w.s[f+fLock]); lock != 0 && r != 0 && r != lock {
				return false // a lock of another time: the count's changes may interleave
			}
			pc := int(w.s[f+fPC])
			if pc >= 0 && (w.s[f+fInBody] == 1 || p.holds[pc]) {
				count-- // a reference the thread may take back
			}
		}
	}
	return count >= 1
}

// conflicts reports whether a step with footprint x depends on a step of
// segment g by their objects; pin says that x's module, when x reads a
// module's globals, is pinned.
func (w *World) conflicts(x sched.Footprint, g *futSeg, pin bool) bool {
	if g.unknown {
		return true
	}
	if x.Access == sched.Local {
		return false
	}
	l := &w.p.lay
	if r := x.Object - l.objLock; g.anyLock != 0 && r > int(GlobalLockRef) {
		for m := range w.p.lockPool {
			if g.anyLock&(1<<m) != 0 && r >= w.p.lockPool[m] && r < w.p.lockPool[m]+w.p.lockPoolSize[m] {
				return true
			}
		}
	}
	word, bit := x.Object/64, uint64(1)<<(x.Object%64)
	if g.writes[word]&bit != 0 || g.gwrites[word]&bit != 0 && !pin {
		return true
	}
	return x.Access == sched.Write && g.reads[word]&bit != 0
}

// MayConflict reports whether thread q may, while the frozen threads
// (p among them) take no step, come to a step that depends on p's next
// step, which can run (see sched.Futures and the rules above).
//
// deathsFail says that the caller's checks fail every step that raises an
// exception the scenario does not raise itself (check's do: a use that
// does not see its fake, an exception of the swap machinery), and that
// an execution ends at its first failing step. Then, in a scenario with
// no raise statement, no thread dies in an execution that has not
// failed, and a block's poll waits for every thread of the block, frozen
// ones included.
func (w *World) MayConflict(p, q int, frozen []bool, deathsFail bool) bool {
	if !w.p.futuresKnown() {
		return true
	}
	f := w.futures(deathsFail)
	if c, ok := w.faultConflict(f, p, q); ok {
		return c
	}
	segs := f.thread(w, q)
	if w.p.Atomicity.BreakerOnly() {
		steps, ok := f.macro(w, p)
		if !ok {
			return true
		}
		for i := range steps {
			if steps[i].conflicts(w, f, p, q, segs, frozen, i == 0) {
				return true
			}
		}
		return false
	}
	x := pStep{pollOf: w.pollOf(p)}
	if x.pollOf < 0 {
		if !f.fpMade[p] {
			f.fps[p], f.fpMade[p] = w.objectFootprint(p), true
		}
		x.fp = f.fps[p]
	}
	if x.conflicts(w, f, p, q, segs, frozen, true) {
		return true
	}
	if f.raisable(w, p) && f.raiserArms(w) && !debug.brokenFaultPOR {
		// p's fall (reduce_faults.go): it touches p's own frames, and
		// may kill p, a loud step
		fall := pStep{fp: sched.Footprint{Access: sched.Local}, pollOf: -1, quiet: -1}
		return fall.conflicts(w, f, p, q, segs, frozen, true)
	}
	return false
}

// pStep is what MayConflict asks of one step of p: its footprint, the
// block it polls (-1: none) and, for a GPU thread, whether it is quiet
// (see the group rules), worked out from the state the step starts in.
type pStep struct {
	fp     sched.Footprint
	pollOf int
	quiet  int8 // 1 quiet, -1 loud, 0 not known yet (asked of w when needed)
}

// pollOf is the block whose poll host p's next step is, or -1.
func (w *World) pollOf(p int) int {
	if w.p.isHost(p) {
		if fr := w.top(p); w.s[fr+fInBody] == 1 {
			if _, st := w.stmtAt(fr); rowOf(st).polls {
				return st.arg
			}
		}
	}
	return -1
}

// conflicts reports whether q's future segs, while the frozen threads stay
// put in w, come to a step dependent on this step of p. first: the step
// is p's next in w, so a read of a module pinned in w commutes (a later
// step of a macro step, below, is not given that).
func (x *pStep) conflicts(w *World, f *futures, p, q int, segs []futSeg, frozen []bool, first bool) bool {
	if x.pollOf >= 0 {
		// the poll reads and writes its block's threads' flags: any step
		// of theirs may matter
		if w.p.isHost(q) || w.p.threadBlock[q] != x.pollOf {
			return false
		}
		for i := range segs {
			if f.holds(w, segs[i].cut, frozen) {
				return false
			}
			if segs[i].steps > 0 {
				return true
			}
		}
		return false
	}
	pin := false
	if l := &w.p.lay; first && x.fp.Access == sched.Read && x.fp.Object >= l.objGlobals && x.fp.Object < l.objLockReg {
		pin = w.pinned(x.fp.Object-l.objGlobals, frozen)
	}
	for i := range segs {
		g := &segs[i]
		if f.holds(w, g.cut, frozen) {
			return false
		}
		if w.conflicts(x.fp, g, pin) {
			return true
		}
		if !w.p.isHost(p) && g.polls&(1<<w.p.threadBlock[p]) != 0 {
			if x.quiet == 0 {
				x.quiet = -1
				if f.quiet(w, p) {
					x.quiet = 1
				}
			}
			if x.quiet < 0 {
				return true
			}
		}
	}
	return false
}

// # Macro steps (GILBreaker)
//
// Under GILBreaker a step that ends at no switch point leaves its thread
// keeping the GIL: no other thread runs until that thread reaches a
// switch point, blocks or ends. Seen as one transition, those steps are
// a macro step, and a search of macro steps finds every failure a search
// of the steps does (a macro step's intermediate states are states where
// only its thread can run, which the search goes through one step at a
// time). The rules above hold of macro steps with a macro step's
// footprint for "p's next step": so MayConflict asks of each of p's steps
// up to the first that leaves it without the GIL, taken on a copy of the
// state with the other threads where they are. A read of a pinned
// module's globals commutes only in the macro step's first step (the
// pin is worked out in the state the macro step starts in; p's own later
// steps could take back a reference). A thread that keeps the GIL now is
// in the middle of one: its macro step is the rest of it.

// maxMacro bounds the steps of one macro step MayConflict takes on a
// copy; a longer one is not known, and conflicts with every thread.
const maxMacro = 1 << 10

// macro is p's macro step from w's state, worked out once per state
// (futures.macros). ok false: not known (longer than maxMacro).
func (f *futures) macro(w *World, p int) (steps []pStep, ok bool) {
	if f.macroMade[p] {
		return f.macros[p], f.macroOK[p]
	}
	steps, ok = w.macroSteps(p, f.macros[p][:0])
	f.macros[p], f.macroOK[p], f.macroMade[p] = steps, ok, true
	return steps, ok
}

// macroSteps appends p's macro step from w to buf: its first step as
// MayConflict takes it from w, then each step p takes on a copy while it
// keeps the GIL and can run, with its poll and its quietness worked out
// where it starts.
func (w *World) macroSteps(p int, buf []pStep) ([]pStep, bool) {
	first := pStep{pollOf: w.pollOf(p)}
	if first.pollOf < 0 {
		first.fp = w.objectFootprint(p)
	}
	buf = append(buf, first)
	if debug.firstStepOnly {
		return buf, true
	}
	c := &World{p: w.p, s: make([]slot, len(w.s))}
	copy(c.s, w.s)
	base := w.thread(p)
	for range maxMacro {
		c.interpret(p)
		if c.s[base+tHold] == 0 || c.s[base+tStatus] != alive || !c.ready(p) {
			return buf, true
		}
		st := pStep{pollOf: c.pollOf(p), quiet: 1}
		if st.pollOf < 0 {
			st.fp = c.objectFootprint(p)
		}
		if !w.p.isHost(p) && !c.quiet(p) {
			st.quiet = -1
		}
		buf = append(buf, st)
	}
	return buf, false
}

// quiet reports whether GPU thread p's next step leaves its thread alive
// and its barrier flags as they are (see the group rules above): it runs
// the step on a copy.
func (w *World) quiet(p int) bool { return w.quietOn(p, &World{}) }

// quietOn is quiet, run on c, whose vector it reuses.
func (w *World) quietOn(p int, c *World) bool {
	f := w.top(p)
	if w.s[f+fInBody] == 1 {
		if _, st := w.stmtAt(f); rowOf(st).barrier {
			return false
		}
	}
	*c = World{p: w.p, s: append(c.s[:0], w.s...)}
	c.interpret(p)
	return c.sameLoudFields(w, p)
}

// sameLoudFields reports whether thread p's status, barrier flags, abort
// and death are in c as they are in w: a step between them was quiet.
func (c *World) sameLoudFields(w *World, p int) bool {
	base := w.thread(p)
	for _, field := range []int{tStatus, tBlocked, tEvent, tAbort, tDied} {
		if c.s[base+field] != w.s[base+field] {
			return false
		}
	}
	return true
}

// AppendEnablers appends to buf threads one of which must step before
// thread q's next step, blocked now, can run (see sched.Futures): its
// host for a thread not started or waiting at the barrier, a lock's owner
// for its acquire, and for the host's poll every thread of the block that
// is neither done nor waiting at the barrier (any of them may die, which
// also lets the poll run).
func (w *World) AppendEnablers(q int, frozen []bool, buf []sched.ThreadID) []sched.ThreadID {
	w.sync()
	if !w.p.futuresKnown() {
		return w.appendOthers(q, buf)
	}
	buf, done := w.faultEnablers(q, buf)
	if done {
		return buf
	}
	if h := w.holder(); h >= 0 && h != q && w.ready(h) {
		return append(buf, sched.ThreadID(h)) // h keeps the GIL: only h runs next
	}
	l := &w.p.lay
	base := w.thread(q)
	if w.s[base+tStatus] == notStarted {
		return append(buf, sched.ThreadID(w.p.hostOf(q)))
	}
	f := w.top(q)
	if w.s[f+fInBody] == 1 {
		if _, st := w.stmtAt(f); rowOf(st).enablers != nil {
			return rowOf(st).enablers(w, q, st, buf)
		}
	} else if fp := w.objectFootprint(q); fp.Object >= l.objLock {
		if o := int(w.s[l.lockOwner+fp.Object-l.objLock]) - 1; o >= 0 {
			return append(buf, sched.ThreadID(o))
		}
	}
	return w.appendOthers(q, buf) // not known
}

// appendOthers appends every thread but q: the enablers where none are
// known.
func (w *World) appendOthers(q int, buf []sched.ThreadID) []sched.ThreadID {
	for u := range w.p.NumThreads() {
		if u != q {
			buf = append(buf, sched.ThreadID(u))
		}
	}
	return buf
}
