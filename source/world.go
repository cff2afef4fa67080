package source

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/sched"
)

// The violation kinds this package reports: check's names for them
// (TestKindsAreCheckKinds ties the two), and ModelGap, which is no
// violation: the search met something this package cannot model.
const (
	KindUseSawReal      = "use-saw-real"
	KindUseSawNone      = "use-saw-none"
	KindUseSawOtherFake = "use-saw-other-fake"
	KindException       = "exception"
	KindLeftSwapped     = "left-swapped"
	KindRegistryLeft    = "registry-leftover"
	KindModelGap        = "model-gap"
)

// Kinds are the violation kinds a search of a World can end in (not
// ModelGap, which is none): -source's -want takes one of them.
func Kinds() []string {
	return []string{KindUseSawReal, KindUseSawNone, KindUseSawOtherFake, KindException, KindLeftSwapped, KindRegistryLeft, sched.KindDeadlock}
}

// World is one state of a Program's launch: every thread's place in the
// simulator's code, the kernel context and the interpreter's state.
type World struct {
	p   *Program
	s   *pyvm.State
	th  []thread
	ctx int8 // _kernel_context: 0 None, else the launch whose fake it is
	// armed: the raise fault is armed (the next move's thread raises at
	// its statement); fell: the faults that fell so far (faults.go)
	armed bool
	fell  int8
	// rec, when set, receives every unit a step runs (traces).
	rec *[]Unit
	// statuses caches Status for the current state (nil: unknown).
	statuses []sched.Status
	// trials[t], when set, is the current state after thread t's next
	// step, and the failure the step gave: the run status made to see
	// whether t blocks, kept so that a clone's Step(t) takes it rather
	// than running the step again (BenchmarkVerdict/*/source: the trial
	// runs were a fifth of a search's time). Nil once anything changed.
	trials []trial
	// from, when set, is the world this one is a clone of, not copied
	// yet (Clone is lazy: a clone whose Step takes a trial copies
	// nothing), as it was at its version fromVer; ver counts this
	// world's changes, so that a clone whose original changed before it
	// was copied is caught, never read.
	from    *World
	fromVer uint64
	ver     uint64
	info    pyvm.StepInfo
	// txLocks and cells are the reduction's record (transactions.go):
	// the locks met on the path, and the locksets of the locations it
	// touched; bounds is how many unreduced steps the last step was.
	txLocks []int32
	cells   []cell
	bounds  int
	// cellsShared: cells is shared with a clone, or the world cloned, and
	// is copied before its first change (ownCells): most clones are a
	// thread's trial, whose step changes few locksets or none
	// (BenchmarkVerdict/*/transactions, -memprofile: the copies were a
	// twentieth of a search's allocations)
	cellsShared bool
	// touch: record in touched the objects the steps touch (a trial's,
	// for futures.go); fut is the state's futures memo
	touch   bool
	touched []int32
	fut     *futures
}

// trial is a world after one step, and the failure the step gave.
type trial struct {
	w    *World
	fail *sched.Failure
	// touched: the objects the step touched (futures.go)
	touched []int32
}

// thread is one thread's place in the simulator's code.
type thread struct {
	frames []frame // GPU thread: kernel first; host: none
	host   int     // host: index of its next hostOp
	phase  phase   // host: where its with statement stands
	cm     pyvm.Value
	done   bool
	// exc is the exception unwinding the thread's frames (a host call's
	// use of cuda that raised AttributeError), Undef when none.
	exc pyvm.Value
	// atBarrier: the thread waits at cuda.syncthreads() (the block
	// manager's blockedthreads); released: the host's poll set its event.
	atBarrier, released bool
	// aborted: the host's poll set the thread's abort flag (a thread of
	// its block died: diedWith)
	aborted bool
	// orphan: the thread's launch was left by an interrupt (no one
	// polls its block: its barrier is never released, its abort flag
	// never set); landing: the host's last step stopped at an
	// eval-breaker check of the file's code, where an interrupt can land
	orphan, landing bool
	// held: the locks the thread holds, for the reduction's locksets
	// (transactions.go)
	held lockset
}

// frame is a GPU thread's place in the kernel or a device function.
type frame struct {
	code  int16 // -1: the kernel; else a function index
	pc    int16 // the statement
	phase phase // of the statement, when it is a device call
	sub   uint8 // of the statement, when it is cuda.syncthreads()
	cm    pyvm.Value
}

// phase is where a with swapped_cuda_module(...): statement stands.
type phase uint8

const (
	phNone    phase = iota
	phCall          // swapped_cuda_module(fn, ctx) runs
	phEnter         // __enter__ runs
	phBody          // the body runs (a callee frame above)
	phExit          // __exit__ runs
	phExitExc       // __exit__ runs with the body's exception
	phUse           // a use's read through the file's __getattribute__ runs
)

// Unit is one thing a step ran: an instruction of the file (Code set), a
// C-level step of the interpreter (Native), or a statement of the
// simulator's code (Where "kernel.py" or a device function's name).
type Unit struct {
	Thread   int
	Where    string // "kernelapi.py:123", "kernel.py", "f1"
	Line     int    // the file's line a file's instruction is on (0 for any other unit)
	Text     string // the line or statement
	Bytecode string // the opcode(s), or the C-level step
	Effect   string // what it did that a reader needs ("dev1.cuda is fake#1")
	// Code and Instr name the file's instruction the unit ran (Code nil:
	// a statement of the simulator's code, or contextlib's, which Where
	// and Text name); Shared: it touched what another thread can.
	Code   *pyvm.Code
	Instr  int
	Shared bool
	// Func is the kernel or device function whose statement the unit ran
	// (a use of cuda, a device call, a raise), "" for any other unit.
	Func string
}

// New is the world before the launch.
func New(p *Program) *World {
	return &World{p: p, s: p.init.Clone(), th: make([]thread, p.NumThreads())}
}

// NumThreads is sched.System's.
func (w *World) NumThreads() int { return w.p.NumThreads() }

// Clone is sched.System's. The copy is made when the clone is first used
// (force), unless its first use is a Step whose trial w kept (adopt).
func (w *World) Clone() sched.System {
	w.force()
	return &World{p: w.p, from: w, fromVer: w.ver}
}

// force makes a lazy clone's copy of its original.
func (w *World) force() {
	if w.from == nil {
		return
	}
	if w.from.ver != w.fromVer {
		panic("source: a clone's original changed before the clone was used")
	}
	*w = *w.from.clone()
}

// adopt makes a lazy clone the trial of thread t its original kept, if
// there is one, and reports whether it did and the step's failure.
func (w *World) adopt(t int) (bool, *sched.Failure) {
	o := w.from
	if o == nil || o.ver != w.fromVer || o.trials == nil || o.trials[t].w == nil {
		return false, nil
	}
	tr := o.trials[t]
	o.trials[t] = trial{} // each trial is taken once
	*w = *tr.w
	w.changed() // its statuses were copied from o's, some not known yet
	return true, tr.fail
}

// changed forgets what was known of the current state: the statuses and
// the trials.
func (w *World) changed() {
	w.statuses, w.trials, w.fut = nil, nil, nil
	w.ver++
}

func (w *World) clone() *World {
	c := &World{p: w.p, s: w.s.Clone(), th: make([]thread, len(w.th)), ctx: w.ctx, armed: w.armed, fell: w.fell, rec: w.rec,
		txLocks: slices.Clone(w.txLocks), cells: w.cells, cellsShared: true}
	w.cellsShared = true
	for i, t := range w.th {
		c.th[i] = t
		c.th[i].frames = append([]frame(nil), t.frames...)
	}
	if w.statuses != nil {
		c.statuses = append([]sched.Status(nil), w.statuses...)
	}
	return c
}

// Footprint is sched.System's: every step depends on every other (POR
// asks futures.go instead; doc.go).
func (w *World) Footprint(t sched.ThreadID) sched.Footprint {
	return sched.Footprint{Object: 1, Access: sched.Write, MayBlock: true, All: true}
}

// Status is sched.System's: a thread is blocked when its next step's
// first shared unit would block (a held lock, the block not finished).
func (w *World) Status(t sched.ThreadID) sched.Status {
	w.force()
	if w.statuses == nil {
		w.statuses = make([]sched.Status, len(w.th))
		for u := range w.th {
			w.statuses[u] = w.status(u)
		}
	}
	return w.statuses[t]
}

func (w *World) status(t int) sched.Status {
	if st, ok := w.faultStatus(t); ok {
		return st
	}
	th := &w.th[t]
	switch {
	case w.finished(t):
		return sched.Done
	case !w.p.isHost(t) && th.frames == nil:
		return sched.Blocked // not started
	}
	if !w.p.isHost(t) && w.s.Status(t) != pyvm.Running && th.exc.K == pyvm.KindUndef {
		if f := &th.frames[len(th.frames)-1]; int(f.pc) < len(w.p.codes[f.code].stmts) && f.sub == syncWait && !th.released {
			return sched.Blocked // at the barrier
		}
	}
	if w.s.Status(t) != pyvm.Running && w.statementAlone(t) {
		return sched.Runnable // a statement of the simulator's code that waits for nothing
	}
	if w.p.isHost(t) && th.frames == nil && w.s.Status(t) != pyvm.Running && w.p.host[t][th.host].kind == hJoin {
		if op := w.p.host[t][th.host]; w.blockDone(op) || w.blockAtBarrier(op) || w.blockDied(op) >= 0 {
			return sched.Runnable
		}
		return sched.Blocked
	}
	if w.s.LocksHeld() == 0 {
		return sched.Runnable // only a lock acquire blocks, and no lock is held
	}
	if _, blocked := w.try(t); blocked {
		return sched.Blocked
	}
	return sched.Runnable
}

// try runs thread t's next step on a copy, and keeps it as t's trial
// unless it blocked (Step(t) then runs just that: adopt).
func (w *World) try(t int) (tr trial, blocked bool) {
	if w.trials != nil && w.trials[t].w != nil {
		return w.trials[t], false
	}
	tw := w.clone()
	tw.rec, tw.touch = nil, w.p.porOn() // only futures.go reads what it touched
	if tw.touch {
		// the locks it holds: what makes its lock-protected accesses,
		// which it does not record, conflict (futures.go)
		for i, x := range w.txLocks {
			if w.th[t].held&(1<<i) != 0 {
				tw.touched = append(tw.touched, x)
			}
		}
	}
	f, blocked := tw.run(t)
	tr = trial{w: tw, fail: f, touched: tw.touched}
	tw.touch, tw.touched = false, nil
	if blocked {
		return tr, true
	}
	if w.rec == nil && !w.armed {
		if w.trials == nil {
			w.trials = make([]trial, len(w.th))
		}
		w.trials[t] = tr
	}
	return tr, false
}

// statementAlone reports whether thread t's next unit, a statement of
// the simulator's code, is a step by itself that cannot block (a use, a
// device call's read of the context, a start, the context's store),
// rather than one that cannot run now (the wait for the block) or one
// that runs on into the file's code (the launch's swap, a with's exit).
func (w *World) statementAlone(t int) bool {
	th := &w.th[t]
	if th.frames == nil {
		k := w.p.host[t][th.host].kind
		return k == hSetContext || k == hStart || k == hReset || k == hDeviceCheck || k == hCheckContext
	}
	if th.exc.K != pyvm.KindUndef {
		return false // unwinding: into a with's __exit__
	}
	f := &th.frames[len(th.frames)-1]
	if int(f.pc) < len(w.p.codes[f.code].stmts) {
		return true
	}
	return len(th.frames) == 1 && !w.p.isHost(t) // a GPU thread's end; the host's call returning runs on
}

// Step is sched.System's.
func (w *World) Step(t sched.ThreadID) *sched.Failure {
	if ok, f := w.adopt(int(t)); ok {
		return f
	}
	w.force()
	w.changed()
	switch int(t) {
	case w.p.raiser:
		w.raiseMove()
		return nil
	case w.p.signal:
		return w.interrupt()
	}
	if w.armed {
		w.fall(int(t))
	}
	f, blocked := w.run(int(t))
	if blocked && f == nil {
		panic(fmt.Sprintf("source: step of %s, which is blocked", w.p.ThreadName(int(t))))
	}
	return f
}

// run runs thread t's next step: units up to the first one that ends it
// (a shared instruction under gil, an eval-breaker check or a block under
// gil-breaker, a statement of the simulator's code). blocked: the step's
// first shared unit could not run (nothing shared changed).
//
// In a reduced world (transactions.go) a step is a transaction: units
// up to the first that commits it (u.ends). bounds counts the unreduced
// steps it joined (Expand): the units an unreduced step ends at, and a
// failing unit in the middle of one.
func (w *World) run(t int) (f *sched.Failure, blocked bool) {
	shared := false
	split := w.splits(t)
	w.th[t].landing = false
	w.bounds = 0
	for {
		u := w.unit(t)
		if u.fail != nil {
			w.bounds++
			return u.fail, false
		}
		if u.blocked {
			return nil, !shared
		}
		if u.bound || u.ends || w.finished(t) {
			w.bounds++
		}
		shared = shared || u.shared
		if split && u.land {
			w.th[t].landing = true
			return nil, false
		}
		if u.ends || (u.check && shared) || w.finished(t) {
			return nil, false
		}
	}
}

// finished reports whether t has nothing left to run.
func (w *World) finished(t int) bool {
	if w.p.isHost(t) {
		return w.th[t].host >= len(w.p.host[t])
	}
	return w.th[t].done
}

// unitResult is what one unit did.
type unitResult struct {
	shared bool // it touched what another thread can
	ends   bool // the step ends after it
	// bound: an unreduced step ends after it (a reduced world's
	// transaction may go on: transactions.go)
	bound bool
	// check: an eval-breaker check follows it (gil-breaker): the step
	// ends after it once the step touched anything shared
	check bool
	// land: an eval-breaker check of the file's code follows it, and
	// its task goes on: an interrupt may land there (interrupt.go)
	land    bool
	blocked bool // it could not run
	fail    *sched.Failure
}

// unit runs one unit of thread t.
func (w *World) unit(t int) unitResult {
	if w.s.Status(t) == pyvm.Running {
		return w.pyStep(t)
	}
	if w.p.isHost(t) && w.th[t].frames == nil {
		return w.hostUnit(t)
	}
	return w.frameUnit(t)
}

// pyStep runs one instruction of thread t's task, and when the task
// ends, hands its outcome to the simulator's code.
func (w *World) pyStep(t int) unitResult {
	w.p.py.Step(w.s, t, &w.info)
	in := &w.info
	if w.touch && in.Blocked {
		// the lock it waits for (futures.go: blockedOn); a step's
		// others, txStep records
		for _, a := range in.Accesses {
			if !a.Const {
				w.touched = append(w.touched, a.Obj.X)
			}
		}
	}
	if in.Blocked {
		return unitResult{blocked: true}
	}
	if w.rec != nil && !strings.HasPrefix(in.Native, "the embedder's call") {
		// (the embedder's call is this package's Begin, which the
		// simulator's statement before it already shows)
		*w.rec = append(*w.rec, w.pyUnit(t, in))
	}
	if in.Fault != "" {
		return unitResult{fail: &sched.Failure{Kind: KindModelGap, Thread: sched.ThreadID(t), Message: in.Fault}}
	}
	r := unitResult{shared: in.Shared(), land: landing(in)}
	switch {
	case w.p.Atomicity == model.GILBreaker:
		r.check = in.Check
	case w.p.tx != nil:
		c := w.txStep(t, in)
		r.ends, r.bound = c == txNon || c == txLeft, r.shared
	default:
		r.ends = r.shared
	}
	if in.Done {
		if f := w.taskDone(t); f != nil {
			r.fail = f
		}
	}
	return r
}

// pyUnit describes the instruction info ran.
func (w *World) pyUnit(t int, in *pyvm.StepInfo) Unit {
	if in.Code == nil {
		return Unit{Thread: t, Where: w.p.file, Bytecode: in.Native, Shared: in.Shared()}
	}
	ins := &in.Code.Instrs[in.Instr]
	line := ins.Line
	if line <= 0 {
		line = in.Code.FirstLine
	}
	op := ins.OpName
	switch {
	case ins.ArgName != "":
		op += " " + ins.ArgName
	case ins.ArgRepr != "":
		op += " " + codeObject.ReplaceAllString(ins.ArgRepr, "<code object $1, line $2>")
	}
	return Unit{Thread: t, Where: fmt.Sprintf("%s:%d", w.p.file, line), Line: line, Text: w.p.line(line), Bytecode: op,
		Code: in.Code, Instr: in.Instr, Shared: in.Shared()}
}

// codeObject is how CPython's dis shows a code object constant: its
// address differs from run to run and its file is the reporter's path,
// so a unit shows its name and line.
var codeObject = regexp.MustCompile(`<code object (\S+) at 0x[0-9a-fA-F]+, file "[^"]*", line (\d+)>`)

// taskDone takes the outcome of thread t's task: an exception is a
// violation; a value moves the with statement on.
func (w *World) taskDone(t int) *sched.Failure {
	v, exc := w.s.Result(t)
	ph := w.phaseOf(t)
	if *ph == phUse {
		*ph = phNone
		f := &w.th[t].frames[len(w.th[t].frames)-1]
		cd := &w.p.codes[f.code]
		st := &cd.stmts[f.pc]
		if exc.K != pyvm.KindUndef && w.s.ExcType(exc) == "KeyboardInterrupt" {
			return &sched.Failure{Kind: KindModelGap, Thread: sched.ThreadID(t),
				Message: "an interrupt landed in the file's __getattribute__ (a use of " + st.attr + "), whose unwinding through a use -source does not model"}
		}
		if exc.K != pyvm.KindUndef {
			if w.afterFailure(t) || w.p.isHost(t) && w.s.ExcType(exc) == "AttributeError" {
				w.th[t].exc = exc // the use raised: the thread's frames unwind
				w.note(t, cd.name, "(the use's __getattribute__ raised)", "", w.s.ExcString(exc))
				return nil
			}
			return &sched.Failure{Kind: KindException, Thread: sched.ThreadID(t),
				Message: fmt.Sprintf("%s raised by the file's __getattribute__ (a use of %s): %s", w.s.ExcType(exc), st.attr, w.s.ExcString(exc))}
		}
		return w.useResolved(t, f, cd, st, v).fail
	}
	if exc.K != pyvm.KindUndef && w.p.isHost(t) && t == w.p.signalHost() && w.s.ExcType(exc) == "KeyboardInterrupt" {
		return w.interrupted(t, exc)
	}
	if exc.K != pyvm.KindUndef && !w.p.isHost(t) && w.afterFailure(t) {
		// after-failure (faults.go): the exception leaves the with
		// statement, and the thread's frame with it
		*ph, *w.cmOf(t) = phNone, pyvm.Value{}
		w.th[t].exc = exc
		w.note(t, w.p.codes[w.th[t].frames[len(w.th[t].frames)-1].code].name, "(after-failure: the thread's abort flag is set)", "", KindException+", which hurts nobody: "+w.s.ExcString(exc))
		return nil
	}
	if exc.K != pyvm.KindUndef {
		what := map[phase]string{phCall: w.p.Source.Name + "(...)", phEnter: "its __enter__", phExit: "its __exit__", phExitExc: "its __exit__"}[*ph]
		return &sched.Failure{Kind: KindException, Thread: sched.ThreadID(t),
			Message: fmt.Sprintf("%s raised by the swap machinery (%s): %s", w.s.ExcType(exc), what, w.s.ExcString(exc))}
	}
	cm := w.cmOf(t)
	th := &w.th[t]
	switch *ph {
	case phCall:
		*cm = v
		*ph = phEnter
		if err := w.s.Enter(t, v); err != nil {
			return &sched.Failure{Kind: KindModelGap, Thread: sched.ThreadID(t), Message: fmt.Sprintf("%s(...) returned %s: %v", w.p.Source.Name, w.s.Repr(v), err)}
		}
	case phEnter:
		*ph = phBody
		if th.frames == nil {
			th.host++ // the launch's body: the starts and joins
		} else {
			f := th.frames[len(th.frames)-1]
			th.frames = append(th.frames, frame{code: w.p.codes[f.code].stmts[f.pc].callee})
		}
	case phExit:
		*ph = phNone
		*cm = pyvm.Value{}
		if th.frames == nil {
			th.host++
		} else {
			th.frames[len(th.frames)-1].pc++
		}
	case phExitExc:
		*ph = phNone
		*cm = pyvm.Value{}
		swallowed := v.K == pyvm.KindBool && v.X != 0
		if th.frames == nil {
			// the launch's with (a block raised): on to
			// _kernel_context = None, the exception with it unless
			// __exit__ swallowed it
			if swallowed {
				th.exc = pyvm.Value{}
			}
			th.host++
			break
		}
		if swallowed {
			th.exc = pyvm.Value{}
			th.frames[len(th.frames)-1].pc++
			break
		}
		// the exception goes on out of the with's frame (unwind)
	}
	return nil
}

// phaseOf and cmOf are thread t's current with statement's phase and
// context manager: the host's own, or its innermost frame's.
func (w *World) phaseOf(t int) *phase {
	if w.th[t].frames == nil {
		return &w.th[t].phase
	}
	fr := w.th[t].frames
	return &fr[len(fr)-1].phase
}

func (w *World) cmOf(t int) *pyvm.Value {
	if w.th[t].frames == nil {
		return &w.th[t].cm
	}
	fr := w.th[t].frames
	return &fr[len(fr)-1].cm
}

// AppendKey is sched.System's: the threads' places, the context, and the
// interpreter's canonical key with the context managers as roots. With
// Program.Symmetry the GPU threads of each block are written sorted by
// what they run (their place in the simulator's code and the file's,
// AppendThreadShape), so states that differ only by which of a block's
// threads is where share a key: a block's threads run the same code on
// the same fake, nothing they run reads their index, and the host starts
// whichever of them is not started yet, so exchanging two of them maps
// every execution to one of the same verdict (TestSymmetryChangesNoVerdict).
func (w *World) AppendKey(b []byte) []byte {
	w.force()
	order := w.order()
	var roots []pyvm.Value
	b = append(b, byte(w.ctx), boolByte(w.armed), byte(w.fell))
	for _, t := range order {
		th := &w.th[t]
		b = w.appendPlace(b, t)
		roots = append(roots, th.cm, th.exc)
		for _, f := range th.frames {
			roots = append(roots, f.cm)
		}
	}
	order = order[:w.p.hosts+w.p.gpus] // the interpreter's threads: not the faults
	all := order
	if !w.p.Symmetry {
		order = nil
	}
	if w.p.breakKey {
		return b // a test's broken reduction: the interpreter's state left out
	}
	if w.p.tx != nil {
		return w.s.AppendKeyUnordered(b, order, w.unordered, func(b []byte, name func(pyvm.Value) int64) []byte {
			return w.appendTx(b, all, name)
		}, roots...)
	}
	return w.s.AppendKeyOrdered(b, order, roots...)
}

// appendPlace appends thread t's place in the simulator's code.
func (w *World) appendPlace(b []byte, t int) []byte {
	th := &w.th[t]
	b = binary.AppendUvarint(b, uint64(th.host))
	b = append(b, byte(th.phase), boolByte(th.done), boolByte(th.frames != nil), byte(len(th.frames)), boolByte(th.atBarrier), boolByte(th.released), boolByte(th.aborted), boolByte(th.orphan), boolByte(th.landing))
	for _, f := range th.frames {
		b = binary.AppendVarint(b, int64(f.code))
		b = binary.AppendVarint(b, int64(f.pc))
		b = append(b, byte(f.phase), f.sub)
	}
	return b
}

// order is the threads in the order the key writes them: the host, then
// each block's threads, sorted by their shape under Program.Symmetry.
func (w *World) order() []int {
	order := make([]int, len(w.th))
	for t := range order {
		order[t] = t
	}
	if !w.p.Symmetry {
		return order
	}
	n := w.p.Scenario.Threads
	end := w.p.hosts + w.p.gpus // the faults' pseudo-threads stay last
	// every thread's shape in one buffer: at[t] is where t's ends
	var buf []byte
	at := make([]int, len(w.th)+1)
	for t := w.p.hosts; t < end; t++ {
		at[t] = len(buf)
		buf = w.s.AppendThreadShape(w.appendPlace(buf, t), t)
		at[t+1] = len(buf)
	}
	shape := func(t int) []byte { return buf[at[t]:at[t+1]] }
	for first := w.p.hosts; first < end; first += n {
		// only threads that run the same code are alike: sorted by their
		// kernel's code first, each keeps to its own group's places
		blk := order[first : first+n]
		slices.SortStableFunc(blk, func(a, b int) int {
			if c := cmp.Compare(w.p.kernelOf(a), w.p.kernelOf(b)); c != 0 {
				return c
			}
			return bytes.Compare(shape(a), shape(b))
		})
	}
	return order
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}

// ThreadName implements sched.Named: the trace's name of thread t.
func (w *World) ThreadName(t sched.ThreadID) string { return w.p.ThreadName(int(t)) }
