package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"swapcheck/scenario"
)

// stmtKind is a compiled statement: the scenario's statements plus the
// host thread's own (the launch as the simulator runs it).
type stmtKind uint8

const (
	sUse stmtKind = 1 + iota
	sCall
	sSync
	sRaise
	sSetContext   // host: _kernel_context = mod
	sLaunch       // host: with swapped_cuda_module(self.fn, fake_cuda_module):
	sResetContext // host: _kernel_context = None (and the caller's except)
	sCheckContext // host: assert _kernel_context is None, ... (several hosts)
	sDeviceCheck  // host: if self._device or _kernel_context: (several hosts)
	sInline       // host: the kernel run as a device function (several hosts)
	sStart        // host: t.start() of the block's lowest-indexed thread not yet started
	sPoll         // host: the BlockManager's polling loop
	sInterrupt    // the signal pseudo-thread: a KeyboardInterrupt lands in the host
	sRaiseFault   // the raise fault's pseudo-thread: arms a raise (raisefault.go)
	sAtomic       // cuda.atomic.OP(array, ...): FakeCUDAAtomic (memory.go)
	sShared       // cuda.shared.array(...): FakeCUDAShared (memory.go)
	sStore        // s[i] = v on a shared array (memory.go)
	sLoad         // x = s[i] on a shared array (memory.go)
	numStmtKinds
)

type stmt struct {
	kind stmtKind
	arg  int // use: name; call: code; launch: code; start: block; poll: block
	attr string
	text string
	// cond: the use is a branch's condition (if cuda.threadIdx.x == 0:),
	// which a host, having no thread index, cannot get past; mod: the
	// condition takes the index modulo a number (% 2)
	cond, mod bool
	// to: for a launch's statements with several hosts, how far ahead the
	// statement after the launch is (see launchStmts)
	to int
	// an atomic's operation, array, element, value and compare, the lock
	// it holds and its place among the thread's atomics (seq); a
	// shared.array's call site (memory.go)
	op                     scenario.AtomicOp
	array, index, val, cmp int
	lock, seq, site        int
}

// local statements touch nothing shared: they run in the step before them.
func (s stmt) local() bool { return stmtKinds[s.kind].local }

type code struct {
	name   string
	module int
	launch int // for a launch body, its launch (1-based)
	stmts  []stmt
}

// Program is a scenario compiled against one protocol and one atomicity
// model: the static part of a World, shared by all its clones.
type Program struct {
	Scenario  *scenario.Scenario
	Protocol  *Protocol
	Atomicity Atomicity

	codes []code
	// threadCode is each GPU thread's kernel code (the host's entries
	// unused): threads whose index takes the same arm of every branch
	// share one; see compileFor.
	threadCode []int
	// codeOf interns compiled codes by content (see compileFor), and
	// compiled memoises compileFor
	codeOf   map[string]int
	compiled map[[3]int]int
	// raises: some code has a raise statement (see World.MayConflict)
	raises     bool
	kernelCode int
	// hosts is the number of host threads, threads 0..hosts-1; hostCodes
	// are their codes, hostCode the first's
	hosts     int
	hostCodes []int
	hostCode  int
	maxFrames int
	maxLocks  int
	// per module: its first lock reference and how many it may make
	lockPool, lockPoolSize []int
	// per thread: launch (1-based) and block (global index), -1 for the host
	threadLaunch []int
	threadBlock  []int
	threadIndex  []int // the thread's index in its block, -1 for a host
	// per thread: the text of the host's statement that starts it
	startText []string
	// per global block index: its threads
	blockThreads [][]int
	// per module: the name of each global, in dict order
	globalNames [][]string
	lay         layout

	// the live parts of threads met so far, numbered (AppendCanonicalKey),
	// the whole slot blocks of threads (AppendCompactKey), and the globals
	// (both; the canonical key's with lock owners renamed)
	liveParts, blocks, globals *interner
	// the GPU threads' steps met so far (see speed_memo.go), their events, and
	// the threads' statuses (see speed_lazy.go)
	steps, statuses *memo
	events          *events
	// fut is the last futures World.futures made (see there)
	fut *futures
	// signal is the interrupt's pseudo-thread (interrupt.go), the last
	// thread, or -1 when the scenario has no interrupt fault; maxFaults
	// bounds the faults of one execution
	signal, maxFaults, signalCode int
	// raiser is the raise fault's pseudo-thread (raisefault.go), the
	// last thread, or -1 when the scenario has no raise fault
	raiser, raiserCode int
	// maxAtomics is the most atomics one thread runs, sharedSites the
	// kernel's shared.array call sites (memory.go)
	maxAtomics, sharedSites int
	// elements: the kernel stores to or loads from a shared array, so
	// each thread keeps the arrays it holds and the barriers it passed,
	// and each allocation what was stored where (memory.go)
	elements bool
	// siteName is the name each shared.array site assigns, in site order
	siteName []string
}

// maxLocks bounds the locks a program may make (one per call at most): lock
// references, counts and pcs must fit the state vector's int16 slots.
const maxLocks = 30_000

// Host is the thread that launches kernels (the first host thread, when
// there are several: threads 0..NumHosts()-1).
const Host = 0

// NumHosts counts the host threads, threads 0..NumHosts()-1.
func (pr *Program) NumHosts() int { return pr.hosts }

// isHost reports whether thread t is a host thread.
func (pr *Program) isHost(t int) bool { return t < pr.hosts }

// isHostCode reports whether code c is a host's program.
func (pr *Program) isHostCode(c int) bool { return slices.Contains(pr.hostCodes, c) }

// maxThreadsInAll bounds a program's threads, pseudo-threads included: a
// slot holds a thread's number plus one.
const maxThreadsInAll = math.MaxInt16 - 1

// NewProgram compiles a scenario for a protocol. It accepts up to
// MaxStressThreads threads per block (the goroutine backend's bound); the
// searches get their scenarios from Build and Parse, which keep to
// MaxThreads.
func NewProgram(sc *scenario.Scenario, p *Protocol, a Atomicity) (*Program, error) {
	if err := sc.ValidateUpTo(scenario.MaxStressThreads); err != nil {
		return nil, err
	}
	// A thread's number is held in a slot (a lock's owner is it plus one):
	// the hosts, every launch's GPU threads and the two fault threads.
	if n := sc.NumHosts() * (1 + sc.Launches*sc.Blocks*sc.Threads); n+2 > maxThreadsInAll {
		return nil, fmt.Errorf("the scenario runs %d threads in all (hosts x (1 + launches x blocks x threads)); the model holds at most %d", n, maxThreadsInAll-2)
	}
	if !p.compiled {
		return nil, fmt.Errorf("protocol %s is not compiled", p.Name)
	}
	if !a.Valid() {
		return nil, fmt.Errorf("unknown atomicity %d", a)
	}
	pr := &Program{Scenario: sc, Protocol: p, Atomicity: a, liveParts: newInterner(), blocks: newInterner(), globals: newInterner(), steps: newMemo(), statuses: newMemo(), events: newEvents(),
		codeOf: map[string]int{}, compiled: map[[3]int]int{}}
	// Code i is device function i as a host runs it (no thread index),
	// then the kernel so; then the kernel for each block and thread index
	// that branches otherwise (without branches, the same code).
	pr.codes = make([]code, len(sc.Functions))
	for i := range sc.Functions {
		pr.compiled[[3]int{i, -1, -1}] = i
	}
	for i := range sc.Functions {
		pr.codes[i] = pr.compileFor(i, -1, -1)
		pr.codeOf[pr.codes[i].key()] = i
	}
	pr.kernelCode = pr.intern(pr.compileFor(kernelFunc, -1, -1))
	kernelFor := make([][]int, sc.Blocks) // by block, then thread index
	for bid := range kernelFor {
		kernelFor[bid] = make([]int, sc.Threads)
		for tid := range kernelFor[bid] {
			kernelFor[bid][tid] = pr.intern(pr.compileFor(kernelFunc, tid, bid))
		}
	}

	pr.hosts = sc.NumHosts()
	for range pr.hosts {
		pr.threadCode = append(pr.threadCode, -1)
		pr.threadLaunch = append(pr.threadLaunch, -1)
		pr.threadBlock = append(pr.threadBlock, -1)
		pr.threadIndex = append(pr.threadIndex, -1)
		pr.startText = append(pr.startText, "")
	}
	// Each host runs the host's program with launches of its own: host h's
	// k-th launch is launch h*Launches+k, with its own fake and threads.
	for h := range pr.hosts {
		var host []stmt
		l := h * sc.Launches
		for _, hs := range sc.HostProgram() {
			if hs.Kind == scenario.HostCall {
				// FakeCUDAKernel.__call__ of a device function: self._device
				// is true, so it swaps the callee's module to whatever
				// _get_kernel_context() returns (kernel.py:84-86), as a
				// device call from a GPU thread does.
				host = append(host, stmt{kind: sCall, arg: hs.Func,
					text: "with swapped_cuda_module(self.fn, _get_kernel_context()):  # " + sc.Functions[hs.Func].Call(hs.Args) + " from the host"})
				continue
			}
			l++
			host = append(host, pr.launchStmts(l, kernelFor)...)
		}
		pr.hostCodes = append(pr.hostCodes, len(pr.codes))
		pr.codes = append(pr.codes, code{name: "host", module: 0, stmts: host})
	}
	pr.hostCode = pr.hostCodes[0]

	pr.maxFrames = max(sc.CallDepth()+1, 2)
	if pr.hosts > 1 && !p.ThreadContext {
		pr.maxFrames++ // a host may run the kernel itself (sInline), its calls above it
	}
	calls := 0
	for _, block := range kernelFor {
		for _, c := range block {
			calls = max(calls, pr.callsPerThread(c, maxLocks))
		}
	}
	hostCalls := pr.callsPerThread(pr.hostCode, maxLocks) // the host's own device calls
	if calls > maxLocks || hostCalls > maxLocks {
		return nil, fmt.Errorf("the scenario makes more than %d device calls per thread (nested ones included); at most %d can be modelled",
			maxLocks, maxLocks-1-sc.Launches)
	}
	gpuThreads, launches := len(pr.threadLaunch)-pr.hosts, pr.hosts*sc.Launches
	pr.maxLocks = 1 + launches + calls*gpuThreads + hostCalls*pr.hosts
	if pr.maxLocks > maxLocks {
		return nil, fmt.Errorf("the scenario makes %d device calls in all (%d per thread, nested ones included); at most %d can be modelled",
			pr.maxLocks-1-sc.Launches, calls, maxLocks-1-sc.Launches)
	}
	// Each module makes its locks from a pool of its own (one lock per call
	// into it at most), so lock creations for different modules touch no
	// common counter and commute, as their footprints say.
	into := make([]int, len(sc.Modules)) // per block: its threads' calls, the most of any block
	for _, block := range kernelFor {
		blockInto := make([]int, len(sc.Modules))
		for _, c := range block {
			pr.callsInto(c, blockInto)
		}
		for m, n := range blockInto {
			into[m] = max(into[m], n)
		}
	}
	hostInto := make([]int, len(sc.Modules))
	pr.callsInto(pr.hostCode, hostInto)
	pr.lockPool = make([]int, len(sc.Modules))
	pr.lockPoolSize = make([]int, len(sc.Modules))
	next := 2 // lock 1 is the protocol's global lock
	for m := range sc.Modules {
		size := into[m]*(gpuThreads/sc.Threads) + hostInto[m]*pr.hosts
		if m == 0 {
			size += launches // the hosts' swaps of the kernel's module
		}
		pr.lockPool[m], pr.lockPoolSize[m] = next, size
		next += size
	}
	for m, mod := range sc.Modules {
		names := append([]string(nil), mod.Names...)
		if m == 0 {
			names = append(names, "kernel")
		}
		for _, f := range sc.Functions {
			if f.Module == m {
				names = append(names, f.Name)
			}
		}
		pr.globalNames = append(pr.globalNames, names)
	}
	pr.sharedSites = sc.SharedSites()
	for _, s := range sc.SharedAllocs() {
		pr.siteName = append(pr.siteName, s.Target)
	}
	pr.addSignal()
	pr.addRaiser()
	pr.lay = newLayout(pr)
	return pr, nil
}

// kernelFunc stands for the kernel in compileFor's function argument.
const kernelFunc = -1

// compileFor compiles function fn (kernelFunc: the kernel) as the thread
// with index tid of block bid runs it (-1, -1: a host, which has no
// thread or block index). Its branches are decided and its repeats
// unrolled, so a code is one run of the body, as straight-line
// statements; its calls go to their callees' codes for the same tid and
// bid. Each branch's condition stays, as a use of cuda (its LOAD_GLOBAL);
// a host gets no further than the first, since FakeCUDAModule.threadIdx
// reads threading.current_thread().threadIdx (kernelapi.py:395-396) and
// blockIdx its blockIdx (399-400), which a host thread lacks, and None and
// the real module lack both: all raise AttributeError.
//
// A repeat's loop (LOAD_GLOBAL range, which reads no name a swap writes;
// CALL range; GET_ITER, FOR_ITER, STORE_FAST and JUMP_BACKWARD on a fresh
// iterator) touches nothing a swap does, so it is folded into the
// statements around it (testdata/cpython/branching.py checks the
// bytecode). Its CALL and JUMP_BACKWARD check the eval breaker, but each
// follows the end of a statement or the thread's start, which already
// end at a switch point (switchpoint.go), with only local steps between:
// folding them hides no switch.
//
// Codes are interned by content, so threads whose indexes take the same
// arms everywhere run one code, and without branches every thread runs
// the code a host does. Which code a thread runs is part of its frames,
// so the canonical key never merges threads whose programs differ.
func (pr *Program) compileFor(fn, tid, bid int) code {
	sc := pr.Scenario
	cd := code{name: "kernel", module: 0}
	body := sc.Kernel
	if fn != kernelFunc {
		f := &sc.Functions[fn]
		cd.name, cd.module, body = f.Name, f.Module, f.Body
	}
	cd.stmts, _ = pr.flatten(nil, cd.module, body, tid, bid)
	return cd
}

// flatten appends one run of body by the thread with index tid of block
// bid to out, and reports whether it stopped at a condition (a host's).
func (pr *Program) flatten(out []stmt, mod int, body []scenario.Stmt, tid, bid int) ([]stmt, bool) {
	for _, s := range body {
		st := stmt{text: pr.Scenario.PythonText(mod, s)}
		switch s.Kind {
		case scenario.OpUse:
			st.kind, st.arg, st.attr = sUse, s.Name, s.Attr
		case scenario.OpCall:
			st.kind, st.arg = sCall, pr.codeFor(s.Func, tid, bid)
			st.text = "with swapped_cuda_module(self.fn, _get_kernel_context()):  # " + st.text
		case scenario.OpSync:
			st.kind, st.arg = sSync, s.Name // cuda.syncthreads() loads the global
		case scenario.OpRaise:
			st.kind = sRaise
			pr.raises = true
		case scenario.OpIf:
			// if cuda.threadIdx.x == 0: LOAD_GLOBAL cuda, then the
			// property's read of the thread's own index (threadIdx or
			// blockIdx)
			st.kind, st.arg, st.attr, st.cond, st.mod = sUse, s.Name, s.Cond.Attr(), true, s.Cond.Mod > 0
			pr.raises = true // a host's condition raises
			out = append(out, st)
			if tid < 0 {
				return out, true
			}
			arm := s.Else
			if s.Cond.Holds(tid, bid) {
				arm = s.Then
			}
			var stop bool
			if out, stop = pr.flatten(out, mod, arm, tid, bid); stop {
				return out, true
			}
			continue
		case scenario.OpAtomic:
			st.kind, st.arg, st.op, st.array, st.index, st.val, st.cmp = sAtomic, s.Name, s.Atomic, s.Array, s.Index, s.Value, s.Cmp
			st.lock = pr.lockOf(s.Atomic)
			st.seq = historySeq(out)
			pr.maxAtomics = max(pr.maxAtomics, st.seq+1)
		case scenario.OpShared:
			st.kind, st.arg, st.site = sShared, s.Name, s.Site
		case scenario.OpStore, scenario.OpLoad:
			st.kind, st.site, st.index, st.val = sStore, s.Site, s.Index, s.Value
			if s.Kind == scenario.OpLoad {
				st.kind = sLoad
			}
			if s.Site < 0 {
				// an element of a kernel argument: a store is in the
				// element's history, which lost-update reads
				st.array = s.Array
				if st.kind == sStore {
					st.seq = historySeq(out)
					pr.maxAtomics = max(pr.maxAtomics, st.seq+1)
				}
			} else {
				pr.elements = true
			}
		case scenario.OpRepeat:
			for range s.Times {
				var stop bool
				if out, stop = pr.flatten(out, mod, s.Body, tid, bid); stop {
					return out, true
				}
			}
			continue
		}
		out = append(out, st)
	}
	return out, false
}

// historySeq is the place of the next atomic or store to a kernel array
// among those of out: where its thread keeps what it returned
// (memory.go's memOld).
func historySeq(out []stmt) int {
	n := 0
	for _, o := range out {
		if o.inHistory() {
			n++
		}
	}
	return n
}

// codeFor is the code of device function fn as the thread with index tid
// of block bid runs it.
func (pr *Program) codeFor(fn, tid, bid int) int {
	if c, ok := pr.compiled[[3]int{fn, tid, bid}]; ok {
		return c
	}
	c := pr.intern(pr.compileFor(fn, tid, bid))
	pr.compiled[[3]int{fn, tid, bid}] = c
	return c
}

// sameFunction is the first code of the function (or kernel) code c runs,
// whatever thread index it was compiled for: for brokenBranchBlind only.
func (pr *Program) sameFunction(c int) int {
	if c < 0 || c >= len(pr.codes) { // a test's unreachable state
		return c
	}
	cd := &pr.codes[c]
	if cd.launch != 0 || pr.isHostCode(c) {
		return c
	}
	for i := range pr.codes {
		if pr.codes[i].name == cd.name && pr.codes[i].module == cd.module && pr.codes[i].launch == 0 && !pr.isHostCode(i) {
			return i
		}
	}
	return c
}

// intern returns the index of a code with cd's content, adding cd if
// there is none.
func (pr *Program) intern(cd code) int {
	k := cd.key()
	if c, ok := pr.codeOf[k]; ok {
		return c
	}
	pr.codes = append(pr.codes, cd)
	pr.codeOf[k] = len(pr.codes) - 1
	return len(pr.codes) - 1
}

// key is cd's content, for intern.
func (cd *code) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %d %d", cd.name, cd.module, cd.launch)
	for _, s := range cd.stmts {
		fmt.Fprintf(&b, "|%d %d %q %q %v %v %d %d %d %d %d %d %d %d %d", s.kind, s.arg, s.attr, s.text, s.cond, s.mod, s.to,
			s.op, s.array, s.index, s.val, s.cmp, s.lock, s.seq, s.site)
	}
	return b.String()
}

// The texts of a launch's first and last host steps under a protocol that
// Dispatches (kernel.py patched: no module-level context): the fake's
// making, and the return to the caller (or its except).
const (
	FakeText   = "fake_cuda_module = FakeCUDAModule(grid_dim, block_dim, self.dynshared_size)"
	ReturnText = "return  # FakeCUDAKernel.__call__ (the caller's except, when the launch raised)"
)

// launchStmts makes launch l's threads and code, and returns the host's
// statements that run it: with _push_kernel_context(fake_cuda_module):
// (kernel.py:96, the generator's lines 31-36) around with
// swapped_cuda_module(self.fn, fake_cuda_module): (kernel.py:124).
func (pr *Program) launchStmts(l int, kernelFor [][]int) []stmt {
	sc := pr.Scenario
	var body []stmt
	for b := range sc.Blocks {
		gb := (l-1)*sc.Blocks + b
		var members []int
		for tid := range sc.Threads {
			t := len(pr.threadLaunch)
			pr.threadCode = append(pr.threadCode, kernelFor[b][tid])
			pr.threadLaunch = append(pr.threadLaunch, l)
			pr.threadBlock = append(pr.threadBlock, gb)
			pr.threadIndex = append(pr.threadIndex, tid)
			members = append(members, t)
			pr.startText = append(pr.startText, "t.start()  # "+pr.ThreadName(t))
			// The block's threads are started in index order, so this
			// statement always starts thread t; naming the block instead
			// keeps the host's code free of thread identities, which
			// symmetry between the block's threads needs (see execStmt).
			body = append(body, stmt{kind: sStart, arg: gb, text: pr.startText[t]})
		}
		pr.blockThreads = append(pr.blockThreads, members)
		body = append(body, stmt{kind: sPoll, arg: gb, text: "while livethreads: ... (bm.run)"})
	}
	lc := len(pr.codes)
	pr.codes = append(pr.codes, code{name: fmt.Sprintf("launch %d", l), module: 0, launch: l, stmts: body})
	if pr.Protocol.ThreadContext {
		// kernel.py patched (docs/proposed_fix.md): no module-level
		// context to set, test or assert; the launch's threads carry its
		// fake. The set and reset statements stay as the host's steps
		// around the launch, on nothing shared: the fake's making, and
		// the caller's side (the return, or the except that catches a
		// failed launch).
		return []stmt{
			{kind: sSetContext, arg: l, text: FakeText},
			{kind: sLaunch, arg: lc, text: "with swapped_cuda_module(self.fn, fake_cuda_module):"},
			{kind: sResetContext, arg: l, text: ReturnText},
		}
	}
	launch := []stmt{
		{kind: sSetContext, arg: l, text: "_kernel_context = mod"},
		{kind: sLaunch, arg: lc, text: "with swapped_cuda_module(self.fn, fake_cuda_module):"},
		{kind: sResetContext, arg: l, text: "_kernel_context = None"},
	}
	if pr.hosts == 1 {
		// With one host, _kernel_context is None whenever the host
		// launches (it resets it in the finally before it launches
		// again), and only that host writes it: FakeCUDAKernel.__call__'s
		// test of it and the assert always pass and are no steps of their
		// own.
		return launch
	}
	// With several hosts, each read of _kernel_context is a step:
	// FakeCUDAKernel.__call__ first tests it (kernel.py:84): when another
	// host's launch set it, the kernel runs at once on this host as a
	// device function would (sInline, kernel.py:85-86); else the assert is
	// a check, then a separate store, so two hosts can both pass it. The
	// statements: test, assert, store, launch, reset, inline; to is the
	// distance from each to the statement after them all.
	out := []stmt{
		{kind: sDeviceCheck, arg: l, text: "if self._device or _kernel_context:", to: 6},
		{kind: sCheckContext, arg: l, text: "assert _kernel_context is None, \"concurrent simulated kernel not supported\"", to: 5},
	}
	out = append(out, launch...)
	out[len(out)-1].to = 2 // the reset: past the inline run
	return append(out, stmt{kind: sInline, arg: pr.kernelCode, text: "with swapped_cuda_module(self.fn, _get_kernel_context()): return self.fn(*args)", to: 1})
}

// callsPerThread counts the device calls one run of code c makes, nested
// calls included, or returns some count above limit once it passes it.
func (pr *Program) callsPerThread(c, limit int) int {
	n := 0
	for _, s := range pr.codes[c].stmts {
		if stmtKinds[s.kind].entersCall {
			n += 1 + pr.callsPerThread(s.arg, limit-n)
			if n > limit {
				return n // the count grows exponentially with the nesting: stop
			}
		}
	}
	return n
}

// callsInto adds to into[m] the calls one run of code c makes into module m,
// nested calls included (bounded by callsPerThread's check).
func (pr *Program) callsInto(c int, into []int) {
	for _, s := range pr.codes[c].stmts {
		if stmtKinds[s.kind].entersCall {
			into[pr.codes[s.arg].module]++
			pr.callsInto(s.arg, into)
		}
	}
}

// NumThreads counts the host and every GPU thread of every launch.
func (pr *Program) NumThreads() int { return len(pr.threadLaunch) }

// ThreadName is the canonical name of thread t: "host" (or "host0",
// "host1", ... with several hosts), or "L1.B0.T2" style names for GPU
// threads (launch, block, thread index; "B0.T2" or "T2" when there is
// one launch of one block).
func (pr *Program) ThreadName(t int) string {
	if t == pr.signal {
		return SignalName
	}
	if t == pr.raiser {
		return RaiseName
	}
	if pr.isHost(t) {
		if pr.hosts == 1 {
			return "host"
		}
		return fmt.Sprintf("host%d", t)
	}
	sc := pr.Scenario
	tid, l := pr.threadIndex[t], pr.threadLaunch[t]
	blk := pr.threadBlock[t] - (l-1)*sc.Blocks
	if sc.Launches*pr.hosts == 1 {
		if sc.Blocks == 1 {
			return fmt.Sprintf("T%d", tid)
		}
		return fmt.Sprintf("B%d.T%d", blk, tid)
	}
	return fmt.Sprintf("L%d.B%d.T%d", l, blk, tid)
}

// layout places every piece of state in the World's flat vector.
type layout struct {
	ctx                                 int
	globals                             []int // per module: first entry
	globalsLen                          []int
	lockReg, countP, count, origP, orig int // per module: base + module
	nextLock                            int // per module: locks it made so far
	lockOwner                           int // base + lock ref
	fault                               int // the raise fault's slots (raisefault.go)
	threads                             int
	threadSize                          int
	size                                int
	// the shared state of memory.go: each array's first element, the
	// atomics' locks, the allocations (per launch and site); and in a
	// thread's block, where its memory slots begin and how many there are
	cells             []int
	opLock, alloc     int
	memBase, memSlots int
	// memHeld and memOld are where a thread's held arrays (one per
	// shared.array site) and its atomics' olds begin in its memory
	// slots; siteOff is each site's first slot in a launch's
	// allocations, launchAlloc their slots per launch
	memHeld, memOld int
	siteOff         []int
	launchAlloc     int
	// object numbers, for footprints
	objContext, objGlobals, objLockReg, objCount, objOrig, objLock int
	objCell, objOpLock, objAlloc, numObjects                       int
}

// Thread fields, then frames.
const (
	tStatus   = iota // notStarted, alive, finished
	tDepth           // frames in use
	tBlocked         // syncthreads_blocked
	tEvent           // syncthreads_event is set
	tAbort           // abort
	tDied            // the exception the thread died with (BlockThread.exception)
	tHold            // gil-breaker: 1 while the thread keeps the GIL (switchpoint.go)
	tLanding         // the host: where its last step stopped at an eval-breaker check (interrupt.go)
	tDeferred        // the host: a generator an interrupt left suspended (interrupt.go)
	tFrames
)

const (
	notStarted = 1 + iota
	alive
	finished
)

// Frame fields: a frame is one device call (or the kernel body, or the
// host's code) with the locals of its swapped_cuda_module generator.
const (
	fCode    = iota // index into Program.codes
	fPC             // protocol pc; -1 for a frame without protocol
	fBody           // statement index in the code
	fInBody         // 1 while the with-body runs (fPC is then the yield)
	fSub            // sub-step of a statement or instruction
	fFake           // fake_cuda_module
	fLock           // lock (a lock reference)
	fOrig           // orig (a bitmask of globals indexes bound to cuda)
	fIter           // the position of a running "for" over a dict
	fTmp            // a value loaded by a BINARY_SUBSCR before its store
	fExc            // the exception pending in a finally or with-exit
	fTmpSet         // 1 from a step that set fTmp to the frame's next step
	fFlag           // a boolean local of the listing (merged-fix's entered)
	fYielded        // 1 once the generator reached its yield (the with-body ran)
	frameSize
)

func newLayout(pr *Program) layout {
	sc := pr.Scenario
	var l layout
	n := 0
	l.ctx = n
	n++
	for m := range sc.Modules {
		l.globals = append(l.globals, n)
		l.globalsLen = append(l.globalsLen, len(pr.globalNames[m]))
		n += len(pr.globalNames[m])
	}
	M := len(sc.Modules)
	l.lockReg, n = n, n+M
	l.countP, n = n, n+M
	l.count, n = n, n+M
	l.origP, n = n, n+M
	l.orig, n = n, n+M
	l.nextLock, n = n, n+M
	l.lockOwner, n = n-1, n+pr.maxLocks // refs 1..maxLocks
	if pr.raiser >= 0 {
		l.fault, n = n, n+faultSlots
	}
	cells := 0
	for _, a := range sc.Arrays {
		l.cells = append(l.cells, n+cells)
		cells += a.Size
	}
	n += cells
	locks := 0
	if sc.HasMemory() {
		locks = len(atomicLocks)
	}
	l.opLock, n = n, n+locks
	allocs := pr.hosts * sc.Launches * pr.sharedSites
	for _, s := range sc.SharedAllocs() {
		l.siteOff = append(l.siteOff, l.launchAlloc)
		l.launchAlloc += allocSlots
		if pr.elements {
			l.launchAlloc += s.Size * elemSlots
		}
	}
	l.alloc, n = n, n+pr.hosts*sc.Launches*l.launchAlloc
	l.threads = n
	l.memBase = tFrames + pr.maxFrames*frameSize
	l.memOld = mEpoch
	if pr.elements {
		l.memHeld = mEpoch + 1
		l.memOld = l.memHeld + pr.sharedSites
	}
	if pr.maxAtomics > 0 || pr.elements {
		l.memSlots = l.memOld + pr.maxAtomics
	}
	l.threadSize = l.memBase + l.memSlots
	n += l.threadSize * pr.NumThreads()
	l.size = n

	l.objContext = 1
	l.objGlobals = 2
	l.objLockReg = l.objGlobals + M
	l.objCount = l.objLockReg + M
	l.objOrig = l.objCount + M
	l.objLock = l.objOrig + M
	l.objCell = l.objLock + pr.maxLocks + 1
	l.objOpLock = l.objCell + cells
	l.objAlloc = l.objOpLock + locks
	l.numObjects = l.objAlloc + allocs
	return l
}
