package pyvm

// State is everything a run changes: the heap (every object, frames
// included) and the threads. It is a value the embedder copies (Clone)
// and will key (doc.go); it holds no Go map, and its only pointers are to
// the Program's immutable code.
type State struct {
	p       *Program
	heap    heap
	threads []thread
	// module is the loaded module's globals dict; modules is sys.modules,
	// the stand-in modules by name.
	module, modules Value
	// held counts the locks some thread holds (an RLock once, however
	// deep), so an embedder knows without trying that no step can block
	// (LocksHeld).
	held int32
	// fault is the first thing a run needed that the interpreter does not
	// model (a thread that hit it stops); "" if none.
	fault string
}

// thread is one Python thread: the frames it runs, innermost last, and
// what its last task (Begin) gave.
type thread struct {
	frames []int32
	// excBase is the thread's own handled exception (the base of CPython's
	// exc_info chain; a running generator's frame holds its own).
	excBase Value
	result  Value // the task's return value, once done
	raised  Value // the task's exception, once done (Undef if it returned)
	busy    bool  // a task is running
	// obj is threading.current_thread()'s object (Undef until first
	// used); class its type's name in messages (SetThreadClass).
	obj   Value
	class string
}

// ThreadStatus is where a thread's task stands.
type ThreadStatus uint8

const (
	// Idle: no task yet, or the last one ended (Result says how).
	Idle ThreadStatus = 1 + iota
	// Running: a task has a next step (which may be blocked: Blocked).
	Running
)

// Clone returns a copy of s that shares every object with s until one of
// them writes it.
func (s *State) Clone() *State {
	c := *s
	c.heap = s.heap.clone()
	c.threads = make([]thread, len(s.threads))
	for i, t := range s.threads {
		c.threads[i] = t
		c.threads[i].frames = append([]int32(nil), t.frames...)
	}
	return &c
}

// Program is the program s runs.
func (s *State) Program() *Program { return s.p }

// Threads is the number of threads.
func (s *State) Threads() int { return len(s.threads) }

// Status is thread t's status.
func (s *State) Status(t int) ThreadStatus {
	if s.threads[t].busy {
		return Running
	}
	return Idle
}

// Result is what thread t's last task gave: its value, or the exception
// it raised (then the value is Undef).
func (s *State) Result(t int) (v, exc Value) {
	th := &s.threads[t]
	return th.result, th.raised
}

// Fault is what the run needed and the interpreter does not model, "file:line
// OPCODE: what is not supported (python 3.x)", or "" if nothing: a thread
// that hit it stopped there, and the run says nothing past it.
func (s *State) Fault() string { return s.fault }

// Module is the loaded module's globals dict.
func (s *State) Module() Value { return s.module }

// LocksHeld is the number of locks some thread holds: while it is 0, no
// thread's next step can block (a lock acquire is the only step that
// blocks).
func (s *State) LocksHeld() int { return int(s.held) }

// SetupObject reports whether v refers to an object of the set-up (made
// before State.Freeze): its heap index names it in every state of a
// search, where another object's index depends on the path that made it.
func (s *State) SetupObject(v Value) bool {
	return (v.K == KindRef || v.K == KindID) && v.X < s.heap.setup
}

// IsDict reports whether v is a dict (a defaultdict too).
func (s *State) IsDict(v Value) bool {
	if v.K != KindRef {
		return false
	}
	_, ok := s.heap.get(v).(*dictObj)
	return ok
}

// IsLock reports whether v is a threading Lock or RLock.
func (s *State) IsLock(v Value) bool {
	if v.K != KindRef {
		return false
	}
	_, ok := s.heap.get(v).(*lockObj)
	return ok
}
