package pyvm

import "slices"

// threading's thread objects and Condition: threading.current_thread(),
// the attributes the embedder gives a thread's object (kernel.py's
// BlockThread sets self.abort = False in __init__ and the host's poll
// sets t_other.abort = True: SetThreadAttr), and threading.Condition:
// its wait, which threading.py writes in Python and this interpreter
// runs as a native frame (natWait), its states where CPython's code can
// switch, and notify and notify_all, which wake waiters as threading.py
// does (a waiter whose wait timed out can still take a notify: the
// wakeup is lost).

// threadObj is what threading.current_thread() returns in thread t-1:
// one object per thread, made on first use, whose attributes live in
// attrs (a shared dict: the embedder writes them from another thread's
// step). class is the name its type shows in messages.
type threadObj struct {
	t     int16 // thread index + 1, renamed with the thread by the key
	attrs Value
	class string
}

func (o *threadObj) clone() object { c := *o; return &c }

// condObj is threading.Condition(lock): the lock it waits on, and its
// waiters, each the lock (a plain Lock, locked) its wait() made and
// blocks on until a notify releases it, in the order they came
// (threading.py's _waiters deque).
type condObj struct {
	lock    Value
	waiters []Value
}

func (c *condObj) clone() object {
	d := *c
	d.waiters = append([]Value(nil), c.waiters...)
	return &d
}

// threadObject is thread t's object, made (shared, owner -1) if it has none.
func (s *State) threadObject(t int) Value {
	th := &s.threads[t]
	if th.obj.K == KindUndef {
		attrs := s.heap.alloc(&dictObj{}, -1)
		class := th.class
		if class == "" {
			class = "Thread"
		}
		th.obj = s.heap.alloc(&threadObj{t: int16(t + 1), attrs: attrs, class: class}, -1)
	}
	return th.obj
}

// SetThreadClass names thread t's object's type in messages (kernel.py's
// BlockThread, threading's _MainThread); set it before the thread runs.
func (s *State) SetThreadClass(t int, name string) { s.threads[t].class = name }

// SetThreadAttr is the embedder's obj.name = v on thread t's object (the
// simulator's own code setting a BlockThread's abort flag); it records no
// footprint: the embedder's statement is its own step.
func (s *State) SetThreadAttr(t int, name string, v Value) {
	obj := s.heap.get(s.threadObject(t)).(*threadObj)
	s.setupExec().dictSet(obj.attrs, s.p.Str(name), v)
}

// threadAttr reads attribute name of a thread's object: an attribute the
// embedder set, else one of threading.Thread's own (not modelled), else
// missing.
func (x *exec) threadAttr(v Value, o *threadObj, name Value) (Value, attrResult) {
	d := x.s.heap.get(o.attrs).(*dictObj)
	x.read(o.attrs, LocEntry, name)
	if i, _ := x.dictFind(d, name); i >= 0 {
		return d.entries[i].val, attrValue
	}
	sname := x.p.String(name)
	for _, a := range threadAttrs {
		if a == sname {
			x.unsupported("attribute " + sname + " of a thread")
			return undef, attrFailed
		}
	}
	x.raise(bAttributeError, "'"+o.class+"' object has no attribute '"+sname+"'")
	return undef, attrMissing
}

// threadAttrs are threading.Thread's own attributes (Python 3.11-3.13),
// which the interpreter does not model.
var threadAttrs = []string{"name", "ident", "native_id", "daemon", "is_alive", "join", "start", "run",
	"getName", "setName", "isDaemon", "setDaemon", "_target", "_args", "_kwargs", "_started", "_is_stopped"}

func callCurrentThread(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if !x.noKw("current_thread", kw) || !x.nargs("current_thread", len(args), 0, 0) {
		return fail()
	}
	return done(x.s.threadObject(x.t))
}

// callCondition is threading.Condition(lock=None): a Lock or an RLock
// the file made, or, with none (or None), an RLock of its own, as
// CPython's __init__ makes.
func callCondition(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 || len(args) > 1 {
		x.unsupported("threading.Condition() with keywords or more than one argument")
		return fail()
	}
	if len(args) == 0 || args[0].K == KindNone {
		rl := x.s.heap.alloc(&lockObj{reentrant: true}, x.t)
		return done(x.s.heap.alloc(&condObj{lock: rl}, x.t))
	}
	if _, ok := x.heapLock(args[0]); !ok {
		x.unsupported("threading.Condition() of a " + x.typeName(args[0]))
		return fail()
	}
	return done(x.s.heap.alloc(&condObj{lock: args[0]}, x.t))
}

// condLock is the lock of Condition c (a field set by __init__ that
// nothing changes: no footprint).
func (x *exec) condLock(c Value) Value { return x.s.heap.get(c).(*condObj).lock }

// callCondAcquire is cond.acquire(...) and cond.__enter__(): the lock's
// (__init__ binds self.acquire = lock.acquire; __enter__ returns
// self._lock.__enter__()).
func callCondAcquire(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	a := append([]Value{x.condLock(args[0])}, args[1:]...)
	return callLockAcquire(x, a, kw, site)
}

// callCondRelease is cond.release(): the lock's.
func callCondRelease(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	return callLockRelease(x, append([]Value{x.condLock(args[0])}, args[1:]...), kw, site)
}

// callCondExit is cond.__exit__(*exc_info): the lock's.
func callCondExit(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	return callLockExit(x, []Value{x.condLock(args[0])}, nil, site)
}

// owned is Condition._is_owned() (3.11 to 3.13): an RLock's own (the
// calling thread owns it); for a Lock, threading.py's fallback, which
// tries acquire(False) and says owned when that fails: locked by any
// thread.
func (x *exec) owned(lv Value) bool {
	l := x.s.heap.get(lv).(*lockObj)
	x.read(lv, LocWhole, undef)
	return l.locked && !(l.reentrant && l.owner != int16(x.t+1))
}

// callCondNotify is cond.notify(n=1) and cond.notify_all() (notify of
// len(self._waiters)), threading.py's loop, one step:
//
//	if not self._is_owned(): raise RuntimeError("cannot notify on un-acquired lock")
//	while waiters and n > 0:
//	    waiter = waiters[0]
//	    try: waiter.release()
//	    except RuntimeError: pass
//	    else: n -= 1
//	    try: waiters.remove(waiter)
//	    except ValueError: pass
//
// One step, though CPython can switch threads inside the loop: the loop
// runs holding the condition's lock, under which alone waiters are
// added and removed, and the only other step that touches a waiter lock
// is its own waiter's wait, which touches no other; so each waiter's
// outcome depends only on whether its release comes before its wait's
// step, and the loop split per waiter reaches the same outcomes. A
// waiter whose wait timed out and has not yet taken itself off the list
// is still released and counted (the wakeup is lost), as in CPython.
// The argument needs the notifier to hold the lock: on a plain Lock,
// _is_owned says only that some thread holds it, so a notify from a
// thread that does not (a bug CPython lets pass) could interleave with
// the holder's wait in ways this one step does not explore (a lockObj
// keeps no owner to tell): a gap for such code only.
func callCondNotify(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	return x.notify(args, kw, false)
}

func callCondNotifyAll(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	return x.notify(args, kw, true)
}

func (x *exec) notify(args []Value, kw []kwArg, all bool) (Value, callStatus) {
	name := "notify"
	if all {
		name = "notify_all"
	}
	cv := args[0]
	n := int64(1)
	switch {
	case len(kw) > 0:
		x.unsupported(name + "() with keywords")
		return fail()
	case all && len(args) > 1 || len(args) > 2:
		x.unsupported(name + "() with more arguments than it takes")
		return fail()
	case len(args) == 2:
		if args[1].K != KindInt {
			x.unsupported("notify() of a " + x.typeName(args[1]))
			return fail()
		}
		n = int64(args[1].X)
	}
	if !x.owned(x.condLock(cv)) {
		x.raise(bRuntimeError, "cannot notify on un-acquired lock")
		return fail()
	}
	x.write(cv, LocWhole, undef)
	c := x.s.heap.mut(cv).(*condObj)
	if all {
		n = int64(len(c.waiters))
	}
	for len(c.waiters) > 0 && n > 0 {
		w := c.waiters[0]
		if x.s.heap.get(w).(*lockObj).locked {
			x.release(w) // a locked plain Lock: it cannot raise
			n--
		} else {
			x.write(w, LocWhole, undef) // release's RuntimeError, passed
		}
		c.waiters = c.waiters[1:]
	}
	return done(None)
}

func (x *exec) heapLock(v Value) (*lockObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	l, ok := x.s.heap.get(v).(*lockObj)
	return l, ok
}

// callCondWait is cond.wait(timeout=None): a natWait frame (tmp: the
// condition, the timeout, the RLock count it saved, its waiter lock,
// gotit).
func callCondWait(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 || len(args) > 2 {
		x.unsupported("Condition.wait() with keywords")
		return fail()
	}
	timeout := None
	if len(args) == 2 {
		timeout = args[1]
	}
	if timeout.K != KindNone && timeout.K != KindFloat && !num(timeout) {
		x.raise(bTypeError, "'>' not supported between instances of '"+x.typeName(timeout)+"' and 'int'")
		return fail()
	}
	x.pushNative(natWait, cMode(site), []Value{args[0], timeout, Int(0), None, False}, nil)
	return undef, statusPushed
}

// waitStep runs natWait's state (threading.py's Condition.wait, 3.11 to
// 3.13 alike):
//
//	0: if not self._is_owned(): raise RuntimeError("cannot wait on un-acquired lock")
//	   waiter = _allocate_lock(); waiter.acquire(); self._waiters.append(waiter)
//	   saved_state = self._release_save()
//	1: gotit = waiter.acquire() (no timeout: True), or waiter.acquire(True, timeout)
//	   (True if a notify released the waiter, else it timed out: False)
//	2: finally: self._acquire_restore(saved_state)  (blocks while the lock is held)
//	   if not gotit: self._waiters.remove(waiter)  (a ValueError passed when a notify took it)
//	   return gotit
//
// Each state ends at a check: the blocking acquires let the GIL go, and
// the C calls after the restore return to Python code.
//
// Where no code that can run calls notify or notify_all
// (Program.notifies), no waiter can be woken, and the wait is what it
// does then: no waiter lock is made (nothing but its own thread would
// ever touch it), a timed wait times out, its timeout merged into the
// restore (state 1 does state 2's work; the timed wait touches nothing
// shared), and a wait without a timeout waits for good (the embedder's
// deadlock, or its hang check).
func (x *exec) waitStep() {
	f := x.f
	cv := f.tmp[0]
	lv := x.condLock(cv)
	notifies := x.s.p.notifies
	switch f.pc {
	case 0:
		x.info.Native = nativeNames[natWait] + ": if not self._is_owned(): raise ...; saved_state = self._release_save()"
		if !x.owned(lv) {
			x.raise(bRuntimeError, "cannot wait on un-acquired lock")
			return
		}
		l := x.s.heap.get(lv).(*lockObj)
		if l.reentrant {
			// _release_save: the whole recursion at once
			f.tmp[2] = Int(l.count)
			x.write(lv, LocWhole, undef)
			x.s.heap.mut(lv).(*lockObj).count = 1
		}
		if notifies {
			w := x.s.heap.alloc(&lockObj{}, x.t)
			callLockAcquire(x, []Value{w}, nil, siteNative) // its own new lock: never blocks
			x.write(cv, LocWhole, undef)
			c := x.s.heap.mut(cv).(*condObj)
			c.waiters = append(c.waiters, w)
			x.stored(cv, w)
			x.f.tmp[3] = w
		}
		if _, st := x.release(lv); st != statusDone {
			return
		}
		if !notifies && f.tmp[1].K == KindNone {
			// the waiter lock it acquired is held for good: the thread
			// blocks on it, and LocksHeld says some lock is held, so
			// an embedder asks the thread's status by a trial
			x.s.held++
		}
		f.pc = 1
		x.check()
	case 1:
		if !notifies {
			if f.tmp[1].K == KindNone {
				x.info.Native = nativeNames[natWait] + ": waiter.acquire() (nothing notifies: it waits for good)"
				x.blocked = true
				return
			}
			x.info.Native = nativeNames[natWait] + ": gotit = waiter.acquire(True, timeout) (timed out); self._acquire_restore(saved_state)"
			x.restore(lv, false)
			return
		}
		// the waiter's acquire: blocking without a timeout; with one, it
		// has the waiter if a notify released it, else the timeout passed
		args := []Value{f.tmp[3]}
		if f.tmp[1].K != KindNone {
			args = append(args, False)
		}
		gotit, st := callLockAcquire(x, args, nil, siteNative)
		switch {
		case st == statusBlocked:
			x.info.Native = nativeNames[natWait] + ": waiter.acquire() (not notified yet)"
			x.blocked = true
			return
		case gotit == True:
			x.info.Native = nativeNames[natWait] + ": gotit = waiter.acquire(...) (notified: True)"
		default:
			x.info.Native = nativeNames[natWait] + ": gotit = waiter.acquire(True, timeout) (timed out: False)"
		}
		f.tmp[4] = gotit
		f.pc = 2
		x.check()
	case 2:
		x.info.Native = nativeNames[natWait] + ": self._acquire_restore(saved_state); if not gotit: self._waiters.remove(waiter)"
		x.restore(lv, f.tmp[4] == True)
	}
}

// restore ends a wait: _acquire_restore (blocking while another thread
// holds the lock), then, when the wait did not get its waiter, its
// waiter off the list if a notify has not taken it, and return gotit.
func (x *exec) restore(lv Value, gotit bool) {
	f := x.f
	if _, st := callLockAcquire(x, []Value{lv}, nil, siteNative); st == statusBlocked {
		x.blocked = true
		return
	}
	if l := x.s.heap.get(lv).(*lockObj); l.reentrant {
		x.s.heap.mut(lv).(*lockObj).count = f.tmp[2].X // _acquire_restore
	}
	if w := f.tmp[3]; !gotit && w.K == KindRef {
		cv := f.tmp[0]
		x.write(cv, LocWhole, undef)
		c := x.s.heap.mut(cv).(*condObj)
		if i := slices.Index(c.waiters, w); i >= 0 {
			c.waiters = slices.Delete(c.waiters, i, i+1)
		}
	}
	x.check()
	x.finish(returned, Bool(gotit))
}
