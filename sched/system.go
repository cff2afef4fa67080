package sched

import "fmt"

// ThreadID names a thread of a System: 0, 1, ... NumThreads()-1.
type ThreadID int

// Status is what a thread's next step can do now.
type Status uint8

const (
	// Runnable: the next step can execute.
	Runnable Status = 1 + iota
	// Blocked: the next step waits (a lock held by another thread, a barrier).
	Blocked
	// Done: the thread has no more steps.
	Done
)

func (s Status) String() string { return enumName("Status", s, "runnable", "blocked", "done") }

// Access says how a step touches its object.
type Access uint8

const (
	// Local: the step touches no shared object.
	Local Access = 1 + iota
	// Read: the step reads the object.
	Read
	// Write: the step writes (or reads and writes) the object.
	Write
)

func (a Access) String() string { return enumName("Access", a, "local", "read", "write") }

// enumName is the name of v, a value of the enum type typ whose values
// from 1 up are named names, or typ(v) when v has none.
func enumName[E ~uint8](typ string, v E, names ...string) string {
	if v >= 1 && int(v) <= len(names) {
		return names[v-1]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// Footprint is what a step declares about itself before it runs: the shared
// object it touches (a System-defined number), how, and whether it may block.
// Two steps of different threads are independent when their objects differ
// or both only read.
//
// Besides its object, a step may belong to a Group of threads whose
// progress another thread watches (a barrier manager polling a block): a
// member's step may end or block its thread, which a watcher sees; members'
// steps commute with each other on that account, but not with a watcher's.
type Footprint struct {
	Object   int
	Access   Access
	MayBlock bool
	// Group (0: none) and Watches: the step is a member's (Watches false)
	// or a watcher's (Watches true) step of the group.
	Group   int
	Watches bool
	// All: the step depends on every step of every other thread, for
	// a step that changes which threads can run at all (a thread that
	// takes or gives up CPython's GIL between steps: model.GILBreaker).
	All bool
}

// Dependent reports whether two steps' order can matter.
func (f Footprint) Dependent(g Footprint) bool {
	if f.All || g.All {
		return true
	}
	if f.Group != 0 && f.Group == g.Group && (f.Watches || g.Watches) {
		return true
	}
	if f.Access == Local || g.Access == Local || f.Object != g.Object {
		return false
	}
	return f.Access == Write || g.Access == Write
}

// Failure is a violated property, found by a step, at the end of an
// execution, or by the scheduler itself (deadlock).
type Failure struct {
	Kind    string   // a stable name, for example "deadlock"
	Message string   // one line for a person
	Thread  ThreadID // the thread whose step failed, or -1
}

// KindDeadlock is the Failure kind the scheduler reports when no thread can
// move but not all are done.
const KindDeadlock = "deadlock"

// System is a deterministic multi-threaded state machine.
type System interface {
	// NumThreads is fixed for the life of the system.
	NumThreads() int
	// Status of thread t's next step.
	Status(t ThreadID) Status
	// Footprint of thread t's next step; only called when t is not Done.
	Footprint(t ThreadID) Footprint
	// Step executes thread t's next step; t must be Runnable. It returns a
	// Failure when the step violates a property.
	Step(t ThreadID) *Failure
	// Final is called once every thread is Done and checks end-state
	// properties.
	Final() *Failure
	// Clone returns an independent copy of the whole state.
	Clone() System
	// AppendKey appends a canonical encoding of the state to b.
	AppendKey(b []byte) []byte
}

// deadlock builds the scheduler's own failure.
func deadlock(s System) *Failure {
	blocked := 0
	for t := range s.NumThreads() {
		if s.Status(ThreadID(t)) == Blocked {
			blocked++
		}
	}
	return &Failure{Kind: KindDeadlock, Thread: -1,
		Message: fmt.Sprintf("no thread can move: %d blocked, none runnable", blocked)}
}
