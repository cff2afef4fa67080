package model

import (
	"slices"
	"unsafe"

	"swapcheck/sched"
)

// slot is one cell of the state vector. Every value the model stores fits:
// Validate bounds globals per module (masks of 16 bits), threads, calls and
// so locks well below 1<<15.
type slot = int16

// World is the simulated CPython process: module globals, the protocol's
// registries, locks, the kernel context and every thread's frames. It is
// four things and no more: its program (shared, never changed), its state
// (s: one flat vector of int16 slots, so a World is copied with one copy
// and compared or hashed as bytes), the options that say what a step
// records besides its outcome, and a cache: a step's scratch and what the
// speed machinery knows of the state, none of which is state.
type World struct {
	p *Program
	s []slot
	Options
	cache worldCache
}

// Options says what a world's steps record besides their outcome.
type Options struct {
	// Trace asks steps to describe their effects in Event.Effects.
	Trace bool
	// History, when set, receives the boundaries of every swap and every
	// use of cuda, for linearizability checking. Clone does not copy it.
	History *History
}

// worldCache is everything a World holds besides its state: a step's
// scratch (its record, its Ctx, the interrupt's notes), which the
// interpreter writes and reads within one step and never carries to the
// next, and what the speed machinery (the compact key, the memo, lazy
// worlds, peeks and the canonical key: speed_compact.go, speed_memo.go, speed_lazy.go,
// speed_peek.go, reduce_canonical.go) knows of the state: numbers for parts of the
// vector and the statuses they imply, each valid until a step may have
// changed what it stands for, which the interpreter never reads. None of
// it is state. CopyFrom copies the speed machinery's part, Clone none.
type worldCache struct {
	// ev is the record of the last step, and ctx the one Ctx the world
	// hands its instructions (kept here so a step allocates nothing).
	ev  Event
	ctx Ctx
	// landing, raising, visFrame and visPC are a step's scratch for the
	// interrupt's landings (interrupt.go): the check the host reached
	// last, whether an exception is unwinding it, and the frame and pc of
	// the step's visible instruction.
	landing  slot
	raising  bool
	visFrame int
	visPC    slot
	// fut is the futures scratch UseFuturesScratch gave (reduce_futures.go);
	// nil: the Program's
	fut *futures
	// canon is AppendCanonicalKey's scratch.
	canon *canonScratch
	// blocks[t] is the number of thread t's slot block in the program's
	// table, 0 when a step may have changed it (AppendCompactKey's
	// scratch, nil until its first call).
	blocks []uint32
	// packed holds blocks[t], for t below 8, in its byte t: the number
	// when it is below 0x80, else 0x80 (so 0 where blocks has 0). It
	// changes with blocks (setBlock), so that CompactWord and PeekWord
	// pack the blocks' numbers without going through them (packWord).
	packed uint64
	// gnum is the number of the globals (the vector up to the threads'
	// blocks) in the program's table, 0 when a step may have changed them.
	gnum uint32
	// stale: s is out of date, and blocks and gnum, all known, are the
	// state (see speed_lazy.go).
	stale bool
	// infos[t] is thread t's statusInfo in the current state, or stUnknown
	// (nil until the first AppendRunnable of a numbered world). A recalled
	// step that leaves the globals as they were keeps the other threads'.
	infos []statusInfo
	// unknown: some of infos may be stUnknown (set where they are marked
	// so, cleared once all are known), so that recalledStatuses need not
	// look when none is (counted with scripts/instructions.sh: 5 to 6
	// fewer instructions a step)
	unknown bool
	// small holds blocks and infos in the world itself when the program
	// has at most smallThreads threads (newBlocks, newInfos), so that
	// CopyFrom, once per state a search makes, copies both as one array
	// rather than in two calls of memmove (counted with
	// scripts/instructions.sh: about 20 fewer instructions a step).
	small struct {
		blocks [smallThreads]uint32
		infos  [smallThreads]statusInfo
	}
	// gil is gilFootprint's scratch world (nil until its first use).
	gil *World
	// shared: the vector is shared with other goroutines (Share), so
	// gilFootprint reads only the thread's own slots.
	shared bool
}

// smallThreads is the most threads whose blocks and infos a World holds
// in itself (World.small).
const smallThreads = 8

// newBlocks is a zeroed blocks slice for w: in w.cache.small when it fits.
func (w *World) newBlocks() []uint32 { return zeroedIn(&w.cache.small.blocks, w.p.NumThreads()) }

// newInfos is a zeroed infos slice for w: in w.cache.small when it fits.
func (w *World) newInfos() []statusInfo { return zeroedIn(&w.cache.small.infos, w.p.NumThreads()) }

// zeroedIn is n zeroed elements: a view of small when n fits in it, else
// a slice of their own.
func zeroedIn[T any](small *[smallThreads]T, n int) []T {
	if n <= smallThreads {
		*small = [smallThreads]T{}
		return small[:n:n]
	}
	return make([]T, n)
}

// New returns the world before the launch: every module's names bound to
// the real module, empty registries, the host about to launch, no GPU
// thread started.
func New(p *Program) *World {
	w := &World{p: p, s: make([]slot, p.lay.size)}
	l := &p.lay
	w.s[l.ctx] = slot(None)
	sc := p.Scenario
	for m, mod := range sc.Modules {
		for i := range l.globalsLen[m] {
			v := Other
			if i < len(mod.Names) {
				v = Real
			}
			w.s[l.globals[m]+i] = slot(v)
		}
	}
	for t := range p.NumThreads() {
		base := w.thread(t)
		w.s[base+tStatus] = notStarted
		w.s[base+tDepth] = 1
		f := base + tFrames
		w.s[f+fPC] = -1
		w.s[f+fInBody] = 1
		switch {
		case p.isHost(t):
			w.s[f+fCode] = slot(p.hostCodes[t])
			w.s[base+tStatus] = alive
		case t == p.signal:
			w.s[f+fCode] = slot(p.signalCode)
			w.s[base+tStatus] = alive
		case t == p.raiser:
			w.s[f+fCode] = slot(p.raiserCode)
			w.s[base+tStatus] = alive
		default:
			w.s[f+fCode] = slot(p.threadCode[t])
		}
	}
	for h := range p.hosts {
		w.settle(h)
	}
	if p.signal >= 0 {
		w.arm()
	}
	return w
}

// Program is the static part of w.
func (w *World) Program() *Program { return w.p }

// Clone returns an independent copy.
func (w *World) Clone() *World {
	c := &World{p: w.p, s: make([]slot, len(w.s)), Options: Options{Trace: w.Trace}}
	w.vectorInto(c.s)
	return c
}

// CopyFrom overwrites w with src, a world of the same program.
func (w *World) CopyFrom(src *World) {
	if w.p != src.p {
		panic("model: CopyFrom between worlds of different programs")
	}
	w.cache.fut = nil
	if w.cache.stale = src.cache.stale; !w.cache.stale {
		copy(w.s, src.s)
	}
	w.cache.unknown = src.cache.unknown
	// With few threads, blocks and infos, where set, are views of small:
	// copying small copies them.
	n := w.p.NumThreads()
	if n <= smallThreads {
		w.cache.small = src.cache.small
	}
	switch {
	case src.cache.infos != nil && n <= smallThreads:
		w.cache.infos = w.cache.small.infos[:n:n]
	case src.cache.infos != nil && len(w.cache.infos) == len(src.cache.infos):
		copy(w.cache.infos, src.cache.infos)
	case src.cache.infos != nil:
		w.cache.infos = slices.Clone(src.cache.infos)
	case w.cache.infos != nil:
		w.forgetStatuses()
	}
	switch {
	case src.cache.blocks != nil && n <= smallThreads:
		w.cache.blocks = w.cache.small.blocks[:n:n]
	case src.cache.blocks != nil && w.cache.blocks != nil:
		copy(w.cache.blocks, src.cache.blocks)
	case src.cache.blocks != nil:
		w.cache.blocks = slices.Clone(src.cache.blocks)
	case w.cache.blocks != nil:
		clear(w.cache.blocks)
	}
	if src.cache.canon != nil || w.cache.canon != nil {
		w.copyCanon(src)
	}
	w.cache.packed = src.cache.packed
	w.cache.gnum = src.cache.gnum
	w.Trace = src.Trace
}

// AppendKey appends the canonical encoding of the state: its vector's
// bytes. The vector holds only state (the Program is shared), every slot
// always written through the same accessors, so equal bytes are equal states.
func (w *World) AppendKey(b []byte) []byte { return append(b, w.KeyView()...) }

// KeyView is the key in place: the vector's bytes, valid until w changes.
func (w *World) KeyView() []byte {
	w.sync()
	if len(w.s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w.s[0])), len(w.s)*int(unsafe.Sizeof(w.s[0])))
}

func (w *World) thread(t int) int { return w.p.lay.threads + t*w.p.lay.threadSize }

func (w *World) top(t int) int {
	base := w.thread(t)
	return base + tFrames + (int(w.s[base+tDepth])-1)*frameSize
}

// Acyclic implements sched.Futures: no execution of a world returns to a
// state it left. Every step moves its thread on through code that runs
// once: a code is one run of a body, its branches decided and its
// repeats unrolled (Program.compileFor), a call pushes a frame that its
// return pops past the call, a host moves through its launches in order
// and waits for its threads by blocking, not by a step, and a fault's
// pseudo-thread fires at most -max-faults times, each firing counted in
// the state. TestStateGraphsAreAcyclic walks every scenario file's graph
// in every mode, with faults, for a state that reaches itself.
func (w *World) Acyclic() bool { return true }

// NumThreads is the host plus every GPU thread.
func (w *World) NumThreads() int { return w.p.NumThreads() }

// Status tells whether thread t can move.
func (w *World) Status(t int) sched.Status {
	w.sync()
	switch w.s[w.thread(t)+tStatus] {
	case notStarted:
		return sched.Blocked
	case finished:
		return sched.Done
	}
	if w.ready(t) {
		if h := w.holder(); h >= 0 && h != t && w.ready(h) {
			return sched.Blocked // h keeps the GIL
		}
		return sched.Runnable
	}
	return sched.Blocked
}

// appendRunnable is AppendRunnable from w's (current) vector.
func (w *World) appendRunnable(buf []sched.ThreadID) ([]sched.ThreadID, bool) {
	allDone := true
	from := len(buf)
	base := w.p.lay.threads
	for t := range w.p.NumThreads() {
		switch w.s[base+tStatus] {
		case finished:
		case notStarted:
			allDone = false
		default:
			allDone = false
			if w.ready(t) {
				buf = append(buf, sched.ThreadID(t))
			}
		}
		base += w.p.lay.threadSize
	}
	return onlyHolder(buf, from, w.holder()), allDone
}

func (w *World) ready(t int) bool {
	if r, ok := w.raiseReady(t); ok {
		return r
	}
	if w.paused(t) {
		return true // local steps come first
	}
	f := w.top(t)
	if w.s[f+fInBody] == 1 {
		_, st := w.stmtAt(f)
		if ready := rowOf(st).ready; ready != nil {
			return ready(w, t, f, st)
		}
		return true
	}
	in := &w.p.Protocol.Code[w.s[f+fPC]]
	if in.Ready == nil {
		return true
	}
	return in.Ready(w.newCtx(t, f))
}

// Footprint of thread t's next step. Every step of a GPU thread is a
// member's step of its block's group (it may end the thread, or block it at
// the barrier); the host's start and poll of a block watch that group.
func (w *World) Footprint(t int) sched.Footprint {
	w.sync()
	if t == w.p.signal && debug.narrowSignal { // wrong on purpose
		if w.paused(Host) || w.s[w.thread(Host)+tStatus] != alive {
			return sched.Footprint{Access: sched.Local}
		}
		return w.objectFootprint(Host)
	}
	if t == w.p.raiser || w.armed() {
		// RAISE's move arms the fault where some thread can raise, which
		// stops every thread that cannot, and the armed move raises and
		// lets them go again: both change which threads can run
		// (raisefault.go).
		if debug.narrowRaise { // wrong on purpose
			if t == w.p.raiser {
				return sched.Footprint{Access: sched.Local}
			}
			return w.objectFootprint(t)
		}
		return sched.Footprint{Access: sched.Write, All: true}
	}
	if t == w.p.signal && w.s[w.thread(Host)+tStatus] == finished {
		// The signal's last step, once host 0 ended: it ends the
		// pseudo-thread and touches nothing else (interrupt), so it
		// changes no other thread's step nor whether one can run.
		return sched.Footprint{Access: sched.Local}
	}
	if t == w.p.signal || w.paused(t) {
		// The interrupt changes where the host is, and a paused host's
		// step runs local steps before a shared one it does not name:
		// both depend on every step (interrupt.go).
		return sched.Footprint{Access: sched.Write, All: true}
	}
	fp := w.objectFootprint(t)
	fp.All = w.gilFootprint(t)
	if !w.p.isHost(t) {
		fp.Group = 1 + w.p.threadBlock[t]
	} else if f := w.top(t); w.s[f+fInBody] == 1 {
		if _, st := w.stmtAt(f); rowOf(st).watches {
			fp.Group, fp.Watches = 1+st.arg, true
		}
		if _, st := w.stmtAt(f); rowOf(st).polls {
			// a pass that aborts the block ends the launch's later
			// blocks before they start (skipLaterBlocks): it changes
			// which threads can ever run. Whether this pass aborts
			// depends on other threads' state, which a footprint must
			// not read (the goroutine backend computes it while they
			// step), so any block with later blocks counts.
			fp.All = fp.All || w.p.hasLaterBlocks(st.arg)
		}
	}
	return fp
}

// hasLaterBlocks reports whether block's launch has blocks after it,
// which a poll that aborts block ends before they start.
func (p *Program) hasLaterBlocks(block int) bool {
	l := p.threadLaunch[p.blockThreads[block][0]]
	for u := range p.NumThreads() {
		if p.threadLaunch[u] == l && p.threadBlock[u] > block {
			return true
		}
	}
	return false
}

// objectFootprint is the shared object a step touches and how.
func (w *World) objectFootprint(t int) sched.Footprint {
	l := &w.p.lay
	f := w.top(t)
	if w.s[w.thread(t)+tStatus] == notStarted {
		return sched.Footprint{Access: sched.Local, MayBlock: true}
	}
	if w.s[f+fInBody] == 1 {
		cd, st := w.stmtAt(f)
		if fp := rowOf(st).footprint; fp != nil {
			return fp(w, f, cd, st)
		}
		return sched.Footprint{Access: sched.Local}
	}
	in := &w.p.Protocol.Code[w.s[f+fPC]]
	mod := w.p.codes[w.s[f+fCode]].module
	fp := sched.Footprint{Access: in.Access, MayBlock: in.Ready != nil}
	switch in.Object {
	case Globals:
		fp.Object = l.objGlobals + mod
	case LockRegistry:
		fp.Object = l.objLockReg + mod
	case CountRegistry:
		fp.Object = l.objCount + mod
	case SavedRegistry:
		fp.Object = l.objOrig + mod
	case ModuleLock:
		fp.Object = l.objLock + int(w.s[f+fLock])
	case GlobalLock:
		fp.Object = l.objLock + int(GlobalLockRef)
	default:
		fp.Access = sched.Local
	}
	return fp
}

// GlobalValue is the i-th global of module m.
func (w *World) GlobalValue(m, i int) Value {
	w.sync()
	return Value(w.s[w.p.lay.globals[m]+i])
}

// RegistryEntry is what the protocol's registries hold for one module.
type RegistryEntry struct {
	Lock       LockRef // _globals_locks[gid], 0 when missing
	HasCount   bool
	Count      int32
	HasSaved   bool
	SavedNames int
}

// Registry is module m's entries in the registries.
func (w *World) Registry(m int) RegistryEntry {
	w.sync()
	l := &w.p.lay
	r := RegistryEntry{
		Lock:     LockRef(w.s[l.lockReg+m]),
		HasCount: w.s[l.countP+m] != 0,
		Count:    int32(w.s[l.count+m]),
		HasSaved: w.s[l.origP+m] != 0,
	}
	for mask := uint16(w.s[l.orig+m]); mask != 0; mask &= mask - 1 {
		r.SavedNames++
	}
	return r
}
