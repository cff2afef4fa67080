package pyvm

// threading's thread objects and Condition: threading.current_thread(),
// the attributes the embedder gives a thread's object (kernel.py's
// BlockThread sets self.abort = False in __init__ and the host's poll
// sets t_other.abort = True: SetThreadAttr), and Condition(lock).wait,
// which threading.py writes in Python and this interpreter runs as a
// native frame (natWait), its states where CPython's code can switch.

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

// condObj is threading.Condition(lock): only the lock it waits on (no
// waiter can be notified: notify is not modelled, and the refusal pass
// refuses its name).
type condObj struct{ lock Value }

func (c *condObj) clone() object { d := *c; return &d }

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

// callCondition is threading.Condition(lock): a Lock or an RLock the
// file made (Condition() makes its own RLock in CPython; not modelled).
func callCondition(x *exec, args []Value, kw []kwArg, site callSite) (Value, callStatus) {
	if len(kw) > 0 || len(args) != 1 {
		x.unsupported("threading.Condition() without one lock argument")
		return fail()
	}
	if _, ok := x.heapLock(args[0]); !ok {
		x.unsupported("threading.Condition() of a " + x.typeName(args[0]))
		return fail()
	}
	return done(x.s.heap.alloc(&condObj{lock: args[0]}, x.t))
}

func (x *exec) heapLock(v Value) (*lockObj, bool) {
	if v.K != KindRef {
		return nil, false
	}
	l, ok := x.s.heap.get(v).(*lockObj)
	return l, ok
}

// callCondWait is cond.wait(timeout=None): a natWait frame (tmp: the
// condition, the timeout, the RLock count it saved).
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
	x.pushNative(natWait, cMode(site), []Value{args[0], timeout, Int(0)}, nil)
	return undef, statusPushed
}

// waitStep runs natWait's state (threading.py's Condition.wait, 3.11 to
// 3.13 alike):
//
//	0: if not self._is_owned(): raise RuntimeError("cannot wait on un-acquired lock")
//	   waiter = _allocate_lock(); waiter.acquire(); self._waiters.append(waiter)
//	   saved_state = self._release_save()
//	1: gotit = waiter.acquire(True, timeout)  (no one notifies: it times out)
//	   finally: self._acquire_restore(saved_state)  (blocks while the lock is held)
//	   ...; return gotit
//
// State 0 ends at a check: the blocking acquire that follows lets the
// GIL go. With no timeout, state 1 never runs: nothing can notify, so
// the thread waits for good (the embedder's deadlock). The timed wait
// touches nothing shared and is merged into the restore; the restore
// ends at a check (the C calls after it return to Python code).
func (x *exec) waitStep() {
	f := x.f
	cond := x.s.heap.get(f.tmp[0]).(*condObj)
	lv := cond.lock
	me := int16(x.t + 1)
	switch f.pc {
	case 0:
		x.info.Native = nativeNames[natWait] + ": if not self._is_owned(): raise ...; saved_state = self._release_save()"
		l := x.s.heap.get(lv).(*lockObj)
		x.read(lv, LocWhole, undef)
		if !l.locked || (l.reentrant && l.owner != me) {
			x.raise(bRuntimeError, "cannot wait on un-acquired lock")
			return
		}
		if l.reentrant {
			// _release_save: the whole recursion at once
			f.tmp[2] = Int(l.count)
			x.write(lv, LocWhole, undef)
			x.s.heap.mut(lv).(*lockObj).count = 1
		}
		if _, st := x.release(lv); st != statusDone {
			return
		}
		if f.tmp[1].K == KindNone {
			// the waiter lock it acquired is held for good: the thread
			// blocks on it, and LocksHeld says some lock is held, so
			// an embedder asks the thread's status by a trial
			x.s.held++
		}
		f.pc = 1
		x.check()
	case 1:
		if f.tmp[1].K == KindNone {
			x.info.Native = nativeNames[natWait] + ": waiter.acquire() (nothing notifies: it waits for good)"
			x.blocked = true
			return
		}
		x.info.Native = nativeNames[natWait] + ": gotit = waiter.acquire(True, timeout) (timed out); self._acquire_restore(saved_state)"
		if _, st := callLockAcquire(x, []Value{lv}, nil, siteNative); st == statusBlocked {
			x.blocked = true
			return
		}
		if l := x.s.heap.get(lv).(*lockObj); l.reentrant {
			x.s.heap.mut(lv).(*lockObj).count = f.tmp[2].X // _acquire_restore
		}
		x.check()
		x.finish(returned, False)
	}
}
