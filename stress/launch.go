package stress

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// launch is one run of the scenario's host code, a fresh World, with each
// thread a goroutine: the host's from the start, each GPU thread's from
// the host's step that starts it (Thread.start).
type launch struct {
	r      *runner
	number int64 // 1-based
	sys    *check.System
	census census
	wg     sync.WaitGroup
	stop   atomic.Bool
	// per thread, written only by the thread's goroutine until wg.Wait
	threads []threadState
	// cursor is the next GPU thread to start (the host's alone): the
	// host starts threads in increasing order.
	cursor int

	failMu sync.Mutex
	fail   *failure
}

// threadState is what one goroutine counts and records.
type threadState struct {
	calls, steps int64
	// keys are the order keys of the thread's steps (not with KeepGoing).
	keys []uint64
	_    [cacheLine]byte
}

// failure is the first broken invariant of a launch.
type failure struct {
	f     sched.Failure
	key   uint64 // the failing step's order key; ^0 for the end state
	after time.Duration
}

func (l *launch) stopped() bool { return l.stop.Load() }

// halt stops the launch: every goroutine leaves at its next step boundary
// or wakes from its queue.
func (l *launch) halt() {
	l.stop.Store(true)
	l.r.queues.broadcast()
}

// report records f (the first one by order key wins) and halts the launch.
func (l *launch) report(f *sched.Failure, key uint64) {
	after := time.Since(l.r.start)
	l.failMu.Lock()
	if l.fail == nil || key < l.fail.key {
		l.fail = &failure{f: *f, key: key, after: after}
	}
	l.failMu.Unlock()
	l.halt()
}

// run starts the host and returns once every goroutine of the launch has
// exited.
func (l *launch) run() {
	l.census.spawn()
	l.wg.Add(1)
	l.cursor = 1
	go l.thread(model.Host, 0)
	l.wg.Wait()
}

// spawn starts GPU thread u's goroutine; g is its group.
func (l *launch) spawn(u, g int) {
	l.census.spawn()
	l.wg.Add(1)
	go l.thread(u, g)
}

// thread is one simulated thread's goroutine; group is its block's
// footprint group (0 for the host).
func (l *launch) thread(t, group int) {
	r := l.r
	h := l.sys.Share()
	w := h.World()
	ts := &l.threads[t]
	defer func() {
		r.locks.drop(t)
		if group != 0 {
			r.queues.watch(group).wake(&l.census) // the host may be polling for this exit
		}
		if !l.census.exit() && !l.stopped() {
			l.report(&sched.Failure{Kind: sched.KindDeadlock, Thread: -1, Message: deadlockMessage(l)}, ^uint64(0))
		}
		l.wg.Done()
	}()
	var noise *rand.Rand
	if r.cfg.Gosched > 0 && r.cfg.Gosched < 1 {
		noise = rand.New(rand.NewPCG(r.cfg.Seed, uint64(l.number)<<20|uint64(t)))
	}
	gosched := uint64(r.cfg.Gosched * (1 << 53))
	record := !r.cfg.KeepGoing
	for !l.stopped() && !w.Done(t) {
		fp := h.Footprint(sched.ThreadID(t))
		q := r.queues.waitingOn(fp)
		seen := q.gen.Load()
		r.locks.lock(t, fp)
		if h.Status(sched.ThreadID(t)) != sched.Runnable {
			r.locks.unlock(t, fp, false)
			if fp.Access == sched.Local && fp.Group != 0 && !fp.Watches {
				r.queues.watch(fp.Group).wake(&l.census) // arrived at the barrier: tell the poll
			}
			if !q.park(seen, &l.census, l.stopped) && !l.stopped() {
				l.report(&sched.Failure{Kind: sched.KindDeadlock, Thread: -1, Message: deadlockMessage(l)}, ^uint64(0))
				return
			}
			continue
		}
		call := w.EntersCall(t)
		var key uint64
		if record {
			key = r.locks.order()
		}
		f := h.Step(sched.ThreadID(t))
		r.locks.unlock(t, fp, w.KeepsGIL(t))
		if fp.Access == sched.Write && !fp.MayBlock { // a release; an acquire frees nothing
			r.queues.object(fp.Object).wakeOne(&l.census)
		}
		ts.steps++
		if call {
			ts.calls++
		}
		if record {
			ts.keys = append(ts.keys, key)
		}
		if f != nil {
			if r.cfg.KeepGoing {
				l.failMu.Lock()
				if l.fail == nil {
					l.fail = &failure{f: *f, key: key}
				}
				l.failMu.Unlock()
			} else {
				l.report(f, key)
				return
			}
		}
		if fp.Watches { // the host's start or poll of a block
			if l.cursor < len(l.threads) && w.Started(l.cursor) {
				l.spawn(l.cursor, fp.Group) // a start: it unblocks nobody else
				l.cursor++
			} else {
				r.queues.member(fp.Group).wake(&l.census) // a poll: the barrier, the abort flags
			}
		}
		switch {
		case gosched == 0:
		case noise == nil || noise.Uint64()>>11 < gosched:
			runtime.Gosched()
		}
	}
}
