package stress

import (
	"sync"
	"time"
	"unsafe"

	"swapcheck/model"
	"swapcheck/sched"
)

// stepLock makes one model step atomic with respect to every step that
// conflicts with it. lock and unlock take the footprint of the step, read
// before it; order, called between them, is the step's position among the
// launch's steps.
type stepLock interface {
	lock(t int, fp sched.Footprint)
	unlock(t int, fp sched.Footprint)
	order() uint64
}

func newStepLock(p *model.Program) stepLock {
	if p.Atomicity.NoGIL() {
		return newFreeThreaded(p)
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

func (g *gil) lock(int, sched.Footprint)   { g.mu.Lock() }
func (g *gil) unlock(int, sched.Footprint) { g.mu.Unlock() }
func (g *gil) order() uint64               { g.seq++; return g.seq }

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

func (f *freeThreaded) unlock(t int, fp sched.Footprint) {
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
