package source

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/scenario"
)

// Program is a loaded file in a scenario's launch: what every World of it
// shares and never changes.
type Program struct {
	Source    *pysource.Source
	Scenario  *scenario.Scenario
	Atomicity model.Atomicity
	// Symmetry keys states up to permuting each block's GPU threads
	// (World.AppendKey); Load sets it, tests clear it to compare.
	Symmetry bool
	// ThreadContext: kernel.py as docs/proposed_fix.md patches it (each
	// BlockThread carries its launch's fake; no module-level
	// _kernel_context), as model.Protocol.ThreadContext says.
	ThreadContext bool
	// breakKey leaves the interpreter's state out of the key: a broken
	// reduction that the tests must catch (export_test.go).
	breakKey bool
	// roots: what each statement on hands the file's code (futures.go:
	// stmtRoots), for a reduced Program
	roots [][][]pyvm.Value
	// noPOR: no futures (futures.go), for tests that compare;
	// nextOnly: a broken one, whose futures are the next steps alone,
	// that the tests must catch (export_test.go)
	noPOR, nextOnly bool
	// tx, when set, makes each step a transaction (transactions.go:
	// Reduced)
	tx *txConfig

	py      *pyvm.Program
	init    *pyvm.State // the set-up, frozen
	swap    pyvm.Value  // the swap function
	fakes   []pyvm.Value
	kernel  pyvm.Value   // the kernel's function object
	funcs   []pyvm.Value // the device functions, by scenario index
	globals []pyvm.Value // each module's globals dict
	names   [][]pyvm.Value
	hosts   int        // host threads: 0..hosts-1
	gpus    int        // GPU threads: hosts..hosts+gpus-1
	signal  int        // the interrupt's pseudo-thread (after the GPU threads), or -1
	raiser  int        // the raise fault's pseudo-thread (the last), or -1
	faults  int        // how many faults one execution may have
	host    [][]hostOp // each host's program
	codes   []code     // the kernel and device functions, as each thread runs them
	kernels []int16    // each GPU thread's kernel code (index: thread - 1)
	lines   []string   // the file's lines, for traces
	digest  string     // Digest of the file's bytes, as read for lines
	file    string     // the file's base name
	// useAttrs are the attributes the scenario's uses read, interned
	useAttrs []pyvm.Value
	// threadObjs: the file calls threading.current_thread(), so the
	// threads have their objects and the abort flag is kept on them too
	threadObjs bool
}

// Host tags: what the interpreter's key records for the objects this
// package owns.
const (
	tagReal   = 1
	tagFake   = 100  // + launch
	tagKernel = 900  // the kernel function
	tagFunc   = 1000 // + function index
)

// hostOp is one statement of the host's program (kernel.py's launch).
type hostOp struct {
	kind   hostKind
	launch int // 1-based
	block  int
	thread int   // the GPU thread a start starts (0-based)
	code   int16 // a call's or an inline run's code: the call statement alone
	// to is where a check goes when the launch does not start: the inline
	// run (the device check), past it (the assert)
	to int
}

type hostKind uint8

const (
	hSetContext   hostKind = 1 + iota // _kernel_context = mod
	hSwap                             // with swapped_cuda_module(self.fn, fake_cuda_module): (call, __enter__)
	hStart                            // t.start()
	hJoin                             // while livethreads: ... (bm.run)
	hExit                             // the with's __exit__
	hReset                            // _kernel_context = None
	hCall                             // a device function called from the host
	hDeviceCheck                      // if self._device or _kernel_context: (several hosts)
	hCheckContext                     // assert _kernel_context is None (several hosts)
	hInline                           // the kernel run as a device function (kernel.py:85-86)
)

// Options are what a load takes beyond the file, the scenario and the
// atomicity.
type Options struct {
	// ThreadContext runs kernel.py as docs/proposed_fix.md patches it
	// (explore's -thread-context; the variants proposed and merged-fix).
	ThreadContext bool
}

// Load is LoadWith under kernel.py as numba-cuda has it.
func Load(src *pysource.Source, sc *scenario.Scenario, a model.Atomicity) (*Program, error) {
	return LoadWith(src, sc, a, Options{})
}

// LoadWith puts src's function in sc's launch under atomicity a: it compiles
// the file for the interpreter's version (the refusal pass), runs the
// module body, and sets up the modules, functions and fakes. Every error
// is one line: a scenario this package does not take, a construct the
// interpreter does not support, a module body that raised.
func LoadWith(src *pysource.Source, sc *scenario.Scenario, a model.Atomicity, o Options) (*Program, error) {
	if err := supported(sc); err != nil {
		return nil, err
	}
	opts := pyvm.Options{}
	switch a {
	case model.GIL, model.GILBreaker:
	case model.FreeThreaded:
		opts.Miss = pyvm.MissSplitSetdefault
	case model.FreeThreadedOverwrite:
		opts.Miss = pyvm.MissSplitOverwrite
	default:
		return nil, fmt.Errorf("-source: atomicity %s is not supported", a)
	}
	py, err := src.Program(opts)
	if err != nil {
		return nil, err
	}
	p := &Program{Source: src, Scenario: sc, Atomicity: a, Symmetry: true, ThreadContext: o.ThreadContext, py: py, file: filepath.Base(src.File)}
	if text, err := os.ReadFile(src.File); err == nil {
		p.lines = strings.Split(string(text), "\n")
		p.digest = Digest(text)
	}
	p.hosts = sc.NumHosts()
	p.gpus = p.hosts * sc.Launches * sc.Blocks * sc.Threads
	p.signal, p.raiser, p.faults = -1, -1, sc.FaultBound()
	next := p.hosts + p.gpus
	if sc.Faults.Has(scenario.FaultInterrupt) {
		p.signal, next = next, next+1
	}
	if sc.Faults.Has(scenario.FaultRaise) {
		p.raiser = next
	}
	s := py.NewState(p.hosts + p.gpus)
	real := s.NewHostModule("numba.cuda", tagReal)
	s.SetModule("numba.cuda", real)
	if err := s.RunModule(); err != nil {
		return nil, fmt.Errorf("%s: %v", src.File, err)
	}
	for m, mod := range sc.Modules {
		g := s.NewDict()
		var names []pyvm.Value
		for _, n := range mod.Names {
			k := py.Str(n)
			names = append(names, k)
			s.DictSet(g, k, real)
		}
		p.globals = append(p.globals, g)
		p.names = append(p.names, names)
		if m == 0 {
			p.kernel = s.NewHostFunction("kernel", tagKernel, g)
			s.DictSet(g, py.Str("kernel"), p.kernel)
		}
	}
	for i, f := range sc.Functions {
		fn := s.NewHostFunction(f.Name, int32(tagFunc+i), p.globals[f.Module])
		s.DictSet(p.globals[f.Module], py.Str(f.Name), fn)
		p.funcs = append(p.funcs, fn)
	}
	for l := 1; l <= p.hosts*sc.Launches; l++ {
		p.fakes = append(p.fakes, s.NewHostObject(fmt.Sprintf("fake#%d", l), int32(tagFake+l)))
	}
	swap, ok := s.Global(src.Name)
	if !ok {
		return nil, fmt.Errorf("%s: the module body did not bind %s", src.File, src.Name)
	}
	s.Freeze()
	p.threadObjects(s)
	p.init, p.swap = s, swap
	for range p.hosts * sc.Launches {
		for b := range sc.Blocks {
			for t := range sc.Threads {
				p.kernels = append(p.kernels, p.codeFor(-1, t, b))
			}
		}
	}
	for h := range p.hosts {
		p.host = append(p.host, p.hostProgram(h))
	}
	return p, nil
}

// hostProgram is host h's statements: its launches (numbered after the
// hosts before it: launch l of host h is h*Launches+l) and its calls.
func (p *Program) hostProgram(h int) []hostOp {
	sc := p.Scenario
	var ops []hostOp
	l := h * sc.Launches
	for _, hs := range sc.HostProgram() {
		if hs.Kind == scenario.HostCall {
			f := sc.Functions[hs.Func]
			ops = append(ops, hostOp{kind: hCall, code: p.callCode(hs.Func, f.Module, f.Call(hs.Args)+" from the host")})
			continue
		}
		l++
		if p.hosts > 1 && !p.ThreadContext {
			// With several hosts, FakeCUDAKernel.__call__ reads
			// _kernel_context twice before it sets it (model.Program's
			// launchStmts): when another host's launch set it, the kernel
			// runs here at once as a device function; else the assert,
			// which another host may pass too.
			ops = append(ops, hostOp{kind: hDeviceCheck, launch: l}, hostOp{kind: hCheckContext, launch: l})
		}
		first := len(ops)
		ops = append(ops, hostOp{kind: hSetContext, launch: l}, hostOp{kind: hSwap, launch: l})
		for b := range sc.Blocks {
			for t := range sc.Threads {
				ops = append(ops, hostOp{kind: hStart, launch: l, block: b, thread: t})
			}
			ops = append(ops, hostOp{kind: hJoin, launch: l, block: b})
		}
		ops = append(ops, hostOp{kind: hExit, launch: l}, hostOp{kind: hReset, launch: l})
		if p.hosts > 1 && !p.ThreadContext {
			inline := len(ops)
			ops = append(ops, hostOp{kind: hInline, launch: l, code: p.callCode(-1, 0, "kernel() run inline")})
			ops[first-2].to = inline
			ops[first-1].to = inline + 1
			ops[inline-1].to = inline + 1 // the reset: past the inline run
		}
	}
	return ops
}

// threadObjects gives the threads the objects threading.current_thread()
// returns, when the file's code calls it: each GPU thread's BlockThread
// with its abort flag False (kernel.py:192, its __init__), the hosts'
// threads. They are made after the set-up is frozen, so that the key
// reaches them from their threads and renames them with the threads.
func (p *Program) threadObjects(s *pyvm.State) {
	if !p.py.Uses("current_thread") {
		return
	}
	p.threadObjs = true
	for h := range p.hosts {
		if p.hosts == 1 {
			s.SetThreadClass(h, "_MainThread")
		}
	}
	for g := p.hosts; g < p.hosts+p.gpus; g++ {
		s.SetThreadClass(g, "BlockThread")
		s.SetThreadAttr(g, "abort", pyvm.False)
		if p.ThreadContext {
			// kernel.py patched: the BlockThread carries its launch's fake
			s.SetThreadAttr(g, "kernel_context", p.fakes[p.launchOf(g)-1])
		}
	}
}

// callCode is a code of one statement, a call of function fn (-1: the
// kernel) from the host, as kernel.py:85-86 runs it.
func (p *Program) callCode(fn, module int, what string) int16 {
	p.codes = append(p.codes, code{name: "host", host: true, module: module, stmts: []stmt{{call: true, fn: fn, callee: p.codeFor(fn, -1, -1),
		text: "with swapped_cuda_module(self.fn, _get_kernel_context()):  # " + what}}})
	return int16(len(p.codes) - 1)
}

// supported refuses, in one line, what of a scenario this package does
// not run yet.
func supported(sc *scenario.Scenario) error {
	var no []string
	if sc.NumHosts() > 1 && hasBranch(sc.Kernel) {
		no = append(no, "a branch in a kernel several hosts run (a host that runs it inline has no thread index)")
	}
	if sc.Faults.Has(scenario.FaultInterrupt) && sc.NumHosts() > 1 {
		no = append(no, "interrupt faults with several hosts")
	}
	if len(sc.Arrays) > 0 {
		no = append(no, "atomics")
	}
	if sc.Fixes != 0 {
		no = append(no, "simulator fixes")
	}
	var walk func([]scenario.Stmt)
	walk = func(body []scenario.Stmt) {
		for _, st := range body {
			switch st.Kind {
			case scenario.OpUse, scenario.OpCall:
			case scenario.OpIf:
				walk(st.Then)
				walk(st.Else)
			case scenario.OpRepeat:
				walk(st.Body)
			case scenario.OpSync:
				if sc.NumHosts() > 1 {
					no = append(no, "syncthreads in a kernel several hosts run")
				}
			case scenario.OpRaise:
			case scenario.OpAtomic:
				no = append(no, "atomics")
			case scenario.OpShared, scenario.OpStore, scenario.OpLoad:
				no = append(no, "shared arrays")
			default:
				no = append(no, fmt.Sprintf("a statement of kind %d", st.Kind))
			}
		}
	}
	walk(sc.Kernel)
	for _, f := range sc.Functions {
		walk(f.Body)
	}
	if len(no) > 0 {
		return fmt.Errorf("-source does not run this scenario yet: %s (package model runs it for the built-in variants)", dedup(no))
	}
	return nil
}

// hasBranch reports whether body has an if statement.
func hasBranch(body []scenario.Stmt) bool {
	for _, st := range body {
		if st.Kind == scenario.OpIf || st.Kind == scenario.OpRepeat && hasBranch(st.Body) {
			return true
		}
	}
	return false
}

func dedup(xs []string) string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return strings.Join(out, ", ")
}

// NumThreads is the hosts and every GPU thread of every block of every
// launch (each a thread of its own, as in package model).
func (p *Program) NumThreads() int {
	n := p.hosts + p.gpus
	if p.signal >= 0 {
		n++
	}
	if p.raiser >= 0 {
		n++
	}
	return n
}

// isHost reports whether thread t is a host.
func (p *Program) isHost(t int) bool { return t < p.hosts }

// gpuThread is the thread number of launch l's (1-based, numbered over
// every host's launches) block b's thread tid.
func (p *Program) gpuThread(l, b, tid int) int {
	sc := p.Scenario
	return p.hosts + ((l-1)*sc.Blocks+b)*sc.Threads + tid
}

// launchOf is GPU thread t's launch (1-based).
func (p *Program) launchOf(t int) int {
	sc := p.Scenario
	return 1 + (t-p.hosts)/(sc.Blocks*sc.Threads)
}

// kernelOf is GPU thread t's kernel code.
func (p *Program) kernelOf(t int) int16 { return p.kernels[t-p.hosts] }

// ThreadName is model.Program's: "host" ("host0", "host1", ... with
// several), then "T2", "B0.T2" or "L1.B0.T2" as the scenario has one
// launch of one block or more.
func (p *Program) ThreadName(t int) string {
	switch t {
	case p.raiser:
		return model.RaiseName
	case p.signal:
		return model.SignalName
	}
	if p.isHost(t) {
		if p.hosts == 1 {
			return "host"
		}
		return fmt.Sprintf("host%d", t)
	}
	sc := p.Scenario
	g := t - p.hosts
	tid, blk, l := g%sc.Threads, (g/sc.Threads)%sc.Blocks, 1+g/(sc.Threads*sc.Blocks)
	switch {
	case sc.Launches*p.hosts == 1 && sc.Blocks == 1:
		return fmt.Sprintf("T%d", tid)
	case sc.Launches*p.hosts == 1:
		return fmt.Sprintf("B%d.T%d", blk, tid)
	}
	return fmt.Sprintf("L%d.B%d.T%d", l, blk, tid)
}

// code is the kernel or a device function as one thread runs it: its
// branches taken and its loops unrolled for the thread's index, as
// package model flattens it (model.Program's flatten).
type code struct {
	name   string // "kernel" or the function's name
	host   bool   // the host's own statement (a call of it), not a body's
	module int
	stmts  []stmt
}

// stmt is one statement of a flattened body: a use of cuda (a branch's
// condition is one: it loads the global, then reads the thread's own
// index), or a device call.
type stmt struct {
	call   bool
	sync   bool       // cuda.syncthreads(): a use of cuda, then the barrier
	raise  bool       // raise: the kernel's own exception (KernelError)
	name   int        // a use's global (index into the module's Names)
	attr   string     // a use's attribute
	attrV  pyvm.Value // attr interned, for a __getattribute__ call
	fn     int        // a call's function (index into Scenario.Functions)
	callee int16      // a call's code
	text   string     // the Python line
}

// useAttr interns attribute name of a use of cuda, and keeps it among
// the attributes the end check reads (World.actsReal).
func (p *Program) useAttr(name string) pyvm.Value {
	v := p.py.Str(name)
	if !slices.Contains(p.useAttrs, v) {
		p.useAttrs = append(p.useAttrs, v)
	}
	return v
}

// flatten compiles body (of module mod, run by thread tid of block bid)
// into out.
func (p *Program) flatten(out []stmt, mod int, body []scenario.Stmt, tid, bid int) []stmt {
	sc := p.Scenario
	for _, st := range body {
		switch st.Kind {
		case scenario.OpUse:
			out = append(out, stmt{name: st.Name, attr: st.Attr, attrV: p.useAttr(st.Attr), text: sc.PythonText(mod, st)})
		case scenario.OpCall:
			out = append(out, stmt{call: true, fn: st.Func, callee: p.codeFor(st.Func, tid, bid),
				text: "with swapped_cuda_module(self.fn, _get_kernel_context()):  # " + sc.Functions[st.Func].Call(st.Args)})
		case scenario.OpSync:
			out = append(out, stmt{sync: true, name: st.Name, attr: "syncthreads", attrV: p.useAttr("syncthreads"), text: sc.PythonText(mod, st)})
		case scenario.OpRaise:
			out = append(out, stmt{raise: true, text: "raise KernelError"})
		case scenario.OpIf:
			out = append(out, stmt{name: st.Name, attr: st.Cond.Attr(), attrV: p.useAttr(st.Cond.Attr()), text: sc.PythonText(mod, st)})
			arm := st.Else
			if st.Cond.Holds(tid, bid) {
				arm = st.Then
			}
			out = p.flatten(out, mod, arm, tid, bid)
		case scenario.OpRepeat:
			for range st.Times {
				out = p.flatten(out, mod, st.Body, tid, bid)
			}
		default:
			panic(fmt.Sprintf("source: a statement of kind %d, which supported lets through", st.Kind))
		}
	}
	return out
}

// codeFor is function fn's code as thread tid of block bid runs it (fn
// -1: the kernel), one code for every thread that runs the same
// statements.
func (p *Program) codeFor(fn, tid, bid int) int16 {
	c := code{name: "kernel"}
	body := p.Scenario.Kernel
	if fn >= 0 {
		f := p.Scenario.Functions[fn]
		c.name, c.module, body = f.Name, f.Module, f.Body
	}
	c.stmts = p.flatten(nil, c.module, body, tid, bid)
	for i, o := range p.codes {
		if o.name == c.name && slices.Equal(o.stmts, c.stmts) {
			return int16(i)
		}
	}
	p.codes = append(p.codes, c)
	return int16(len(p.codes) - 1)
}

// Digest is Digest of the file's bytes ("" when they could not be read
// again after compiling): what a schedule records of them.
func (p *Program) Digest() string { return p.digest }

// Version is the CPython version whose bytecode runs.
func (p *Program) Version() pyvm.Version { return p.py.Version }

// line is the text of the file's line n, trimmed ("" if unknown).
func (p *Program) line(n int) string {
	if n < 1 || n > len(p.lines) {
		return ""
	}
	return strings.TrimSpace(p.lines[n-1])
}

// Signal and Raiser are the interrupt's and the raise fault's
// pseudo-threads (model.Program's), -1 without them.
func (p *Program) Signal() int { return p.signal }
func (p *Program) Raiser() int { return p.raiser }
