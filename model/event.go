package model

import (
	"swapcheck/scenario"
)

// EventKind says what a step did, for the invariants.
type EventKind uint8

const (
	// EvStep: a step with nothing the invariants look at.
	EvStep EventKind = 1 + iota
	// EvUse: kernel or device code loaded a cuda global (Saw) where it
	// should have found its launch's fake (Want).
	EvUse
	// EvSharedSplit: a thread's cuda.shared.array returned another array
	// (Saw, numbered in store order) than the first a thread of its
	// launch got from the same call site (Want): FakeCUDAShared's
	// allocation was overwritten (memory.go).
	EvSharedSplit
	// EvStaleRead: after a barrier, a thread loaded a slot of its shared
	// array (Saw, its array's number) that another thread of its block
	// stored to before the barrier, into another array (Want)
	// (memory.go).
	EvStaleRead
)

// Event describes one step: who ran, which Python line and bytecode it
// stands for, and what it did. Its numbers (EventNumbers, embedded) are
// what a step records; its texts are filled in from them (Describe) for
// traces and failures only.
type Event struct {
	EventNumbers
	// Name is the global a use read (Kind EvUse).
	Name string
	// Where is "naive.py:15" for a protocol line, "kernel" or a device
	// function's name for kernel code, "kernel.py" for the simulator's own
	// code run by the host or by a GPU thread.
	Where    string
	Line     int
	Text     string
	Bytecode string
	// Effects describe what the step changed or read, when World.Trace is
	// on, for example "cuda = fake#1".
	Effects []string
	// described: the texts above are filled in (Describe).
	described bool
}

// EventNumbers is what a step records of its Event: numbers only, no
// texts and no pointers, so that the hot path writes no pointers (no GC
// write barriers) and the memo can key and copy a step's event as one
// value (speed_memo.go). The unexported fields say where the texts come from.
//
// The fields the per-step invariant reads (Kind, Saw, Want, Raised,
// Machinery, Aborted) come first, so that a search's check of a peeked step
// (check.System.PeekWord) reads one cache line of the event: tuned with
// cachegrind's cache simulation of BenchmarkExhaustiveMerged5's search;
// see docs/performance.md.
type EventNumbers struct {
	Thread int
	Kind   EventKind
	// Use: the module and global read (Event.Name), what was seen and
	// what was due.
	Saw, Want Value
	// Raised is the exception this step raised or passed on (0 for none);
	// Machinery is true when the swap protocol's own code raised it (not
	// when a finally or a with's exit re-raises the body's exception).
	Raised    Exc
	Machinery bool
	// Aborted: the thread's launch had already failed before this step
	// (BlockThread.abort was set: a thread of its block died and the host
	// re-raised without joining), so the thread lingers. Set on a use and
	// on an exception of the swap machinery, the steps the invariants
	// judge; read from the thread's own slots, so the memo keeps it exact.
	Aborted bool
	Module  int

	src     source
	pc      int // srcInstr: the protocol pc
	code    int // srcStmt: the code and statement
	body    int
	sub     int // a syncthreads' sub-step
	started int // a t.start()'s thread
	// skipped: a failed assert in _push_kernel_context ended a launch's
	// threads before they started (skipLaunch)
	skipped  bool
	pollText pollText
	// checked: the step checked the eval breaker (switchpoint.go);
	// keepsGIL: it ended at no switch point (Event.KeepsGIL).
	checked, keepsGIL bool
	// splitHalf: the step was the lookup half of a free-threaded
	// defaultdict miss, whose __missing__ runs as the thread's next step
	// (defaultdict.go); under the GIL the two are one step
	splitHalf bool
	// alt: an atomic's step in its method's else arm (inc's, dec's
	// "array[index] += 1"), for its line (memory.go)
	alt bool
	// Fault is the fault this step is (FaultRaise: its statement raised
	// instead of running, raisefault.go), 0 for none.
	Fault scenario.Fault
}

// source is where an Event's texts come from.
type source uint8

const (
	srcNone   source = iota
	srcInstr         // a protocol instruction
	srcStmt          // a kernel or device statement, or the host's
	srcLocal         // a paused host's local steps only (interrupt.go)
	srcSignal        // the interrupt's landing (interrupt.go)
	srcRaiser        // the raise fault's pseudo-thread (raisefault.go)
)

// pollText is which pass of the host's poll a step was.
type pollText uint8

const (
	pollNone pollText = iota
	pollAbort
	pollDone
	pollRelease
)

var pollTexts = [...]string{
	pollAbort:   "t_other.abort = True ...; raise t.exception[0]",
	pollDone:    "livethreads is empty: the block is done",
	pollRelease: "livethreads == blockedthreads: t.syncthreads_event.set() for each",
}

// Describe fills in ev's texts (Where, Line, Text, Bytecode, Name) from
// what its step recorded, if that is not done yet. ev must come from a
// World of p.
func (p *Program) Describe(ev *Event) {
	if ev.described {
		return
	}
	ev.described = true
	switch ev.src {
	case srcInstr:
		in := &p.Protocol.Code[ev.pc]
		ev.Where = p.Protocol.where[ev.pc]
		ev.Line, ev.Text, ev.Bytecode = in.Line, in.Text, in.Bytecode
	case srcLocal:
		ev.Where, ev.Text, ev.Bytecode = "host", localTexts[ev.pc], "(local steps, then an eval-breaker check)"
	case srcSignal:
		ev.Where, ev.Text, ev.Bytecode = "signal", "KeyboardInterrupt (SIGINT) raised in the host at its eval-breaker check", "(eval breaker: handle_signals)"
		if ev.pc == 1 {
			ev.Text, ev.Bytecode = "the host's program ended: no interrupt lands any more", "-"
		}
	case srcRaiser:
		ev.Where, ev.Text, ev.Bytecode = "fault", "a raise fault is armed: the next move's thread raises at its statement", "-"
		if ev.pc == 1 {
			ev.Text = "no raise fault falls any more (none can here, or the bound is spent)"
		}
	case srcStmt:
		cd := &p.codes[ev.code]
		st := &cd.stmts[ev.body]
		ev.Where, ev.Text = cd.name, st.text
		if d := rowOf(st).describe; d != nil {
			d(p, ev, cd, st)
		}
		p.describeFault(ev)
	}
}
