package stress

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"swapcheck/model"
	"swapcheck/sched"
)

// A blocked thread parks on the wait queue of what it waits for, and a step
// that may unblock it wakes that queue:
//
//   - a Python lock (acquire not ready): the lock's object, woken by a
//     step that writes that object and cannot block (the release). As a
//     release of a threading.Lock does, it wakes one sleeper: only one can
//     take the lock, and a woken thread that finds the lock taken again
//     parks again, to be woken by the next release;
//   - the barrier (syncthreads waiting for its event): its group's member
//     queue, woken by the host's steps that watch the group (its poll
//     releases the barrier or sets the abort flags);
//   - the host polling a block: the group's watcher queue, woken by a member
//     that parks at the barrier or exits (what the poll waits for).
//
// No wakeup is lost: a thread reads the queue's generation before it
// checks its status under the step's locks, and parks only if the
// generation is still the same; a waker bumps the generation after its
// step. registered and gen form a Dekker pair (Go's atomics are
// sequentially consistent): either the waker sees the parker registered
// and takes the queue's mutex to wake it, or the parker sees the new
// generation and does not sleep.
type waitq struct {
	gen        atomic.Uint64
	registered atomic.Int32
	mu         sync.Mutex
	cond       sync.Cond
	sleeping   int64 // parked and not yet woken, under mu
}

type paddedWaitq struct {
	waitq
	_ [cacheLine - unsafe.Sizeof(waitq{})%cacheLine]byte
}

// queues are a run's wait queues: one per object, then one member and one
// watcher queue per group.
type queues struct {
	all     []paddedWaitq
	objects int
	groups  int
}

func newQueues(p *model.Program) *queues {
	q := &queues{objects: p.NumObjects(), groups: p.NumGroups()}
	q.all = make([]paddedWaitq, q.objects+2*q.groups)
	for i := range q.all {
		q.all[i].cond.L = &q.all[i].mu
	}
	return q
}

func (q *queues) object(o int) *waitq { return &q.all[o].waitq }
func (q *queues) member(g int) *waitq { return &q.all[q.objects+g].waitq }
func (q *queues) watch(g int) *waitq  { return &q.all[q.objects+q.groups+g].waitq }

// waitingOn is the queue a thread whose next step has footprint fp parks
// on when that step is blocked.
func (q *queues) waitingOn(fp sched.Footprint) *waitq {
	switch {
	case fp.Access != sched.Local:
		return q.object(fp.Object)
	case fp.Watches:
		return q.watch(fp.Group)
	default:
		return q.member(fp.Group)
	}
}

// reset forgets the sleepers of a stopped launch (woken by stop, never
// counted out).
func (q *queues) reset() {
	for i := range q.all {
		w := &q.all[i].waitq
		w.mu.Lock()
		w.sleeping = 0
		w.mu.Unlock()
	}
}

// broadcast wakes every sleeper of every queue (the launch stops).
func (q *queues) broadcast() {
	for i := range q.all {
		w := &q.all[i].waitq
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// wake tells q's sleepers that something changed; they count as running
// again from now on, so the deadlock check never sees a woken goroutine
// as parked.
func (w *waitq) wake(c *census) {
	w.gen.Add(1)
	if w.registered.Load() == 0 {
		return
	}
	w.mu.Lock()
	if w.sleeping > 0 {
		c.unpark(w.sleeping)
		w.sleeping = 0
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

// wakeOne wakes one sleeper of q (a lock's release).
func (w *waitq) wakeOne(c *census) {
	w.gen.Add(1)
	if w.registered.Load() == 0 {
		return
	}
	w.mu.Lock()
	if w.sleeping > 0 {
		c.unpark(1)
		w.sleeping--
		w.cond.Signal()
	}
	w.mu.Unlock()
}

// park sleeps until q's generation moves past seen or stopped reports
// true. It returns false, without sleeping, when parking would leave no
// live goroutine running: a deadlock.
func (w *waitq) park(seen uint64, c *census, stopped func() bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.registered.Add(1)
	defer w.registered.Add(-1)
	for w.gen.Load() == seen && !stopped() {
		if !c.park() {
			return false
		}
		w.sleeping++
		w.cond.Wait()
	}
	return true
}

// census counts a launch's live goroutines and how many of them are
// parked, in one word, so every update sees a consistent pair.
type census struct{ v atomic.Uint64 }

const liveUnit = 1 << 32

func (c *census) spawn()         { c.v.Add(liveUnit) }
func (c *census) unpark(n int64) { c.v.Add(-uint64(n)) }
func (c *census) counts() (live, parked uint32) {
	v := c.v.Load()
	return uint32(v >> 32), uint32(v)
}

// park counts one more parked goroutine, unless that would make every live
// one parked: then nobody is left to wake anybody, and it returns false.
func (c *census) park() bool {
	v := c.v.Add(1)
	if uint32(v>>32) == uint32(v) {
		c.v.Add(^uint64(0))
		return false
	}
	return true
}

// exit counts a goroutine out; it reports false when the ones left are
// all parked (a deadlock).
func (c *census) exit() bool {
	v := c.v.Add(^uint64(liveUnit - 1))
	live, parked := uint32(v>>32), uint32(v)
	return live == 0 || live != parked
}
