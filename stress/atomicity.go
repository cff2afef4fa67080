package stress

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"swapcheck/model"
	"swapcheck/sched"
)

// stepLock makes one model step atomic with respect to every step that
// conflicts with it. lock and unlock take the footprint of the step, read
// before it; order, called between them, is the step's position among the
// launch's steps. keep, given to unlock, says that thread t's step left it
// holding the GIL (model.World.KeepsGIL, mode gil-breaker): its next step
// follows with no other thread's in between. drop, when thread t's
// goroutine exits, lets go of what it kept.
type stepLock interface {
	lock(t int, fp sched.Footprint)
	unlock(t int, fp sched.Footprint, keep bool)
	drop(t int)
	order() uint64
}

func newStepLock(p *model.Program) stepLock {
	switch {
	case p.Atomicity.NoGIL():
		return newFreeThreaded(p)
	case p.Atomicity.BreakerOnly():
		b := &gilBreaker{}
		b.holder.Store(-1)
		return b
	}
	return &gil{}
}

// gil is CPython's global interpreter lock: one mutex, held for exactly one
// model step (one atomic CPython operation); between two steps any
// goroutine may take it, as any thread may take the GIL between two
// bytecodes.
type gil struct {
	mu  sync.Mutex
	seq uint64 // steps so far, under mu
}

func (g *gil) lock(int, sched.Footprint)         { g.mu.Lock() }
func (g *gil) unlock(int, sched.Footprint, bool) { g.mu.Unlock() }
func (g *gil) drop(int)                          {}
func (g *gil) order() uint64                     { g.seq++; return g.seq }

// gilBreaker is the GIL of CPython 3.11 as mode gil-breaker has it: as
// gil, but a thread whose step ended at no eval-breaker check keeps the
// mutex for its next step, as a 3.11 thread keeps the GIL until it
// checks, blocks or ends.
type gilBreaker struct {
	gil
	holder atomic.Int64 // the thread that kept mu after its step, or -1
}

func (g *gilBreaker) lock(t int, _ sched.Footprint) {
	if g.holder.Load() == int64(t) {
		return // kept from its last step
	}
	g.mu.Lock()
}

// drop releases the mutex if thread t kept it: its goroutine stops (the
// launch failed or was stopped) after a step that kept the GIL.
func (g *gilBreaker) drop(t int) {
	if g.holder.Load() == int64(t) {
		g.unlock(t, sched.Footprint{}, false)
	}
}

func (g *gilBreaker) unlock(t int, _ sched.Footprint, keep bool) {
	if keep {
		g.holder.Store(int64(t))
		return
	}
	g.holder.Store(-1)
	g.mu.Unlock()
}

// freeThreaded is CPython without the GIL: each object has its own lock (a
// dict's critical section), taken shared by a step that only reads it; a
// GPU thread's steps also take its block's group lock shared, which the
// host's start and poll of the block (they read every member's state) take
// exclusive. Locks are taken group first, then object, so two steps never
// wait for each other in a cycle.
type freeThreaded struct {
	objects []paddedRWMutex
	groups  []groupLock
	epoch   time.Time
}

func newFreeThreaded(p *model.Program) *freeThreaded {
	return &freeThreaded{
		objects: make([]paddedRWMutex, p.NumObjects()),
		groups:  make([]groupLock, p.NumGroups()),
		epoch:   time.Now(),
	}
}

func (f *freeThreaded) lock(t int, fp sched.Footprint) {
	if fp.Group != 0 {
		if fp.Watches {
			f.groups[fp.Group].lock()
		} else {
			f.groups[fp.Group].rlock(t)
		}
	}
	switch fp.Access {
	case sched.Read:
		f.objects[fp.Object].RLock()
	case sched.Write:
		f.objects[fp.Object].Lock()
	}
}

func (f *freeThreaded) drop(int) {}

func (f *freeThreaded) unlock(t int, fp sched.Footprint, _ bool) {
	switch fp.Access {
	case sched.Read:
		f.objects[fp.Object].RUnlock()
	case sched.Write:
		f.objects[fp.Object].Unlock()
	}
	if fp.Group != 0 {
		if fp.Watches {
			f.groups[fp.Group].unlock()
		} else {
			f.groups[fp.Group].runlock(t)
		}
	}
}

// order is the monotonic clock, read while the step's locks are held: of
// two conflicting steps, the later one took a lock the earlier released
// after reading the clock, so the clock orders them as they ran.
// Independent steps may tie or interleave in any order; they commute.
func (f *freeThreaded) order() uint64 { return uint64(time.Since(f.epoch)) }

// groupShards spreads a group's members over several reader locks, so
// that 1024 members do not all count themselves on one cache line; the
// watcher takes them all.
const groupShards = 8

type groupLock struct{ shards [groupShards]paddedRWMutex }

func (g *groupLock) rlock(t int)   { g.shards[t%groupShards].RLock() }
func (g *groupLock) runlock(t int) { g.shards[t%groupShards].RUnlock() }

func (g *groupLock) lock() {
	for i := range g.shards {
		g.shards[i].Lock()
	}
}

func (g *groupLock) unlock() {
	for i := range g.shards {
		g.shards[i].Unlock()
	}
}

// cacheLine keeps hot locks and counters of different objects apart.
const cacheLine = 64

type paddedRWMutex struct {
	sync.RWMutex
	_ [cacheLine - unsafe.Sizeof(sync.RWMutex{})%cacheLine]byte
}
