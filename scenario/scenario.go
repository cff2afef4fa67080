package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// OpKind is what one statement of kernel or device-function code does.
type OpKind uint8

const (
	// OpUse: "cuda.<attr>" — load the module global, then the attribute.
	OpUse OpKind = 1 + iota
	// OpCall: call a device function (which swaps the callee's module).
	OpCall
	// OpSync: cuda.syncthreads().
	OpSync
	// OpRaise: the kernel code raises an exception of its own.
	OpRaise
	// OpIf: "if cuda.threadIdx.x <Cond>:" (or blockIdx.x) Then,
	// "else:" Else. The condition loads the module global (Name), a use
	// of cuda like any other, then the thread's own index: which arm a
	// thread takes is fixed by its index in the block and its block's
	// index in the launch.
	OpIf
	// OpRepeat: "for _ in range(Times):" Body.
	OpRepeat
	// OpAtomic: "cuda.atomic.<Atomic>(array, ...)" on kernel argument
	// Array (memory.go): a use of cuda (Name), then FakeCUDAAtomic's
	// method under its lock.
	OpAtomic
	// OpShared: "Target = cuda.shared.array(Size, ...)": a use of cuda
	// (Name), then FakeCUDAShared.array's allocation at call site Site.
	OpShared
	// OpStore: "Target[Index] = Value" on the shared array the kernel's
	// call site Site returned to Target (memory.go): numpy's element
	// set, one C call.
	OpStore
	// OpLoad: "x = Target[Index]", numpy's element get.
	OpLoad
)

// CmpOp is the comparison of a branch's condition.
type CmpOp uint8

const (
	CmpEq CmpOp = 1 + iota
	CmpNe
	CmpLt
	CmpLe
	CmpGt
	CmpGe
)

var cmpOps = [...]string{CmpEq: "==", CmpNe: "!=", CmpLt: "<", CmpLe: "<=", CmpGt: ">", CmpGe: ">="}

func (o CmpOp) String() string {
	if o < CmpEq || o > CmpGe {
		return "?"
	}
	return cmpOps[o]
}

// CondVar is the index a branch tests.
type CondVar uint8

const (
	// CondTid: the thread's index in its block, cuda.threadIdx.x.
	CondTid CondVar = iota
	// CondBid: the block's index in its launch, cuda.blockIdx.x.
	CondBid
)

// Cond is a branch's condition: Var (modulo Mod when Mod > 0) Op Than.
type Cond struct {
	Var  CondVar
	Mod  int
	Op   CmpOp
	Than int
}

// Holds reports whether the thread with index tid, in the block with
// index bid, takes the branch.
func (c Cond) Holds(tid, bid int) bool {
	x := tid
	if c.Var == CondBid {
		x = bid
	}
	if c.Mod > 0 {
		x %= c.Mod
	}
	switch c.Op {
	case CmpEq:
		return x == c.Than
	case CmpNe:
		return x != c.Than
	case CmpLt:
		return x < c.Than
	case CmpLe:
		return x <= c.Than
	case CmpGt:
		return x > c.Than
	case CmpGe:
		return x >= c.Than
	}
	panic(fmt.Sprintf("scenario: condition with unknown comparison %d", c.Op))
}

// Attr is the attribute of the fake module the condition reads:
// threadIdx or blockIdx (each reads threading.current_thread()'s own,
// kernelapi.py's FakeCUDAModule properties).
func (c Cond) Attr() string {
	if c.Var == CondBid {
		return "blockIdx"
	}
	return "threadIdx"
}

// String renders c as the scenario file spells it ("tid == 0",
// "bid % 2 != 1").
func (c Cond) String() string {
	name := "tid"
	if c.Var == CondBid {
		name = "bid"
	}
	if c.Mod > 0 {
		name += fmt.Sprintf(" %% %d", c.Mod)
	}
	return fmt.Sprintf("%s %s %d", name, c.Op, c.Than)
}

// python renders c's test as Python, through the module global g
// ("cuda.threadIdx.x % 2 == 0").
func (c Cond) python(g string) string {
	x := g + "." + c.Attr() + ".x"
	if c.Mod > 0 {
		x += fmt.Sprintf(" %% %d", c.Mod)
	}
	return fmt.Sprintf("%s %s %d", x, c.Op, c.Than)
}

// Stmt is one statement of kernel or device-function code.
type Stmt struct {
	Kind OpKind
	// Name is the module global a use loads (an index into the module's
	// Names), Attr the attribute it reads, Rest the attributes read after
	// it ("array" in cuda.local.array, "x" in cuda.threadIdx.x: of the
	// fake's own objects, nothing a swap touches) and Target the local
	// name the value is stored to ("i" in i = cuda.threadIdx.x); Rest
	// and Target may be empty.
	Name         int
	Attr         string
	Rest, Target string
	// Func is the device function a call calls (an index into
	// Functions), Args what it passes: whole numbers and the caller's
	// local names, as written (the swap never reads them).
	Func int
	Args []string
	// Cond, Then and Else are a branch's (OpIf; Name is the global its
	// condition loads). Times and Body are a repeat's (OpRepeat).
	Cond       Cond
	Then, Else []Stmt
	Times      int
	Body       []Stmt
	// Atomic, Array, Index, Value and Cmp are an atomic's (OpAtomic): the
	// operation, the kernel argument (an index into Arrays), the
	// element, the value and (compare_and_swap, cas) the value compared
	// with. Size and Site are a shared.array's (OpShared; Target is the
	// name it binds): its elements, and its call site, the kernel's
	// shared.array statements numbered in the order they are written
	// (FakeCUDAShared keys its allocations by the caller's file and line).
	Atomic            AtomicOp
	Array             int
	Index, Value, Cmp int
	Size, Site        int
}

// Module is a Python module whose globals bind the real cuda module.
type Module struct {
	Name string
	// Names are the globals bound to the real module (cuda, cu, ...), in
	// the dict's order; the module's functions follow them in its globals.
	Names []string
	// Others are the module's other globals as the file declares them
	// (np=numpy, SIZE=32), each with its place among Names. The model
	// does not hold them: no swap writes them and no thread adds a global,
	// so a swap's pass over one reads an entry nothing changes and
	// commutes with every other thread's step (docs/limits.md). The
	// replays write them, so the real scan passes over them.
	Others []Other
}

// Other is a module global not bound to cuda: Name = Value, Value a whole
// number or a name (what it stands for: numpy), declared before Names[At].
type Other struct {
	Name, Value string
	At          int
}

// Function is a device function: its module, its parameters and its
// body.
type Function struct {
	Name   string
	Module int
	Params []string
	Body   []Stmt
}

// Scenario is one kernel launch set-up: modules, device functions, the
// kernel's body (run by every thread) and the launch shape. Module 0 is the
// kernel's own module.
type Scenario struct {
	Modules   []Module
	Functions []Function
	Kernel    []Stmt
	Threads   int // threads per block
	Blocks    int // blocks per launch, run one after another
	Launches  int // launches, one after another; a launch that raised is caught
	// Host is the host thread's program when it calls device functions
	// itself (see HostStmt): its launches, Launches of them, in order,
	// with the calls between. Nil when the host only launches.
	Host []HostStmt
	// Hosts is the number of host threads (0 means 1), each running the
	// host's program at once, with launches of its own (its Launches
	// launches), as a threaded program or test runner does.
	Hosts int
	// Faults are the asynchronous faults a search explores (faults.go),
	// at most MaxFaults of them per execution (0 means 1).
	Faults    Faults
	MaxFaults int
	// Arrays are the kernel's arguments (memory.go), Fixes the simulator
	// fixes it runs with.
	Arrays []Array
	Fixes  Fixes
}

// NumHosts is the number of host threads.
func (sc *Scenario) NumHosts() int { return max(sc.Hosts, 1) }

// HostKind is what one statement of the host's program does.
type HostKind uint8

const (
	// HostLaunch: launch the kernel (the next launch, in order).
	HostLaunch HostKind = 1 + iota
	// HostCall: call a device function from the host, outside any launch
	// (FakeCUDAKernel.__call__ of a device function: kernel.py:84-86). A
	// call that raised is caught, like a launch that raised.
	HostCall
)

// HostStmt is one statement of the host's program.
type HostStmt struct {
	Kind HostKind
	// Func is the device function a call calls (an index into Functions),
	// Args what it passes (whole numbers).
	Func int
	Args []string
}

// HostProgram is the host's program: Host, or Launches launches when the
// host calls nothing itself.
func (sc *Scenario) HostProgram() []HostStmt {
	if sc.Host != nil {
		return sc.Host
	}
	prog := make([]HostStmt, sc.Launches)
	for i := range prog {
		prog[i] = HostStmt{Kind: HostLaunch}
	}
	return prog
}

// Limits on what a scenario may ask for; beyond them the state space is out
// of reach of any strategy here, and the model's encodings overflow.
// MaxThreads is CUDA's block maximum: a search takes a block of that
// size (merged's one call per thread verifies at 256 threads in about
// 16 s on 2 cores, docs/performance.md), and says incomplete where its
// limits cut a larger one.
const (
	MaxThreads   = 1024
	MaxBlocks    = 16
	MaxLaunches  = 4
	MaxHosts     = 3
	MaxModules   = 16
	MaxNames     = 8
	MaxNest      = 8
	MaxStmts     = 64
	MaxFunctions = 64
	// MaxRepeat bounds a repeat's count, MaxDepth the nesting of branches
	// and repeats, and MaxRun the statements one run of a body makes once
	// its branches are decided and its repeats unrolled (each a step or
	// more of the model, the condition's load among them).
	MaxRepeat = 8
	MaxDepth  = 4
	MaxRun    = 256
	// MaxGlobals bounds a module's globals: its names, its functions and
	// (the kernel's module) the kernel. MaxOthers bounds its other
	// globals (np=numpy), which the model does not hold.
	MaxGlobals = 16
	MaxOthers  = 16
)

// MaxStressThreads bounds the threads per block of a scenario run on real
// goroutines (package stress; BuildUpTo, ValidateUpTo): CUDA's block
// maximum, as MaxThreads is for the searches (Build, Parse, Validate).
const MaxStressThreads = MaxThreads

// MaxSourceThreads bounds the threads per block of a -source search: each
// GPU thread there is a thread of the bytecode interpreter, its frames in
// the heap every state copies and keys (package source), so a block past
// this is out of reach.
const MaxSourceThreads = 64

// Shape is the generated scenario the command-line flags describe.
type Shape struct {
	Threads, Blocks, Calls, Modules, Names, Nest int
	Syncthreads                                  bool
	// HostCalls: the host also calls f1 itself, before and after the
	// launch (a device function called from the host).
	HostCalls bool
	// Hosts: host threads, each launching the kernel at once (0 means 1).
	Hosts int
	// Branch: threads differ: thread 0 makes the kernel's calls once,
	// the others twice (if tid == 0: CALLS; else: repeat 2: CALLS).
	Branch bool
	// Faults and MaxFaults: the faults to explore, and how many per
	// execution (0 means 1); see Scenario.
	Faults    Faults
	MaxFaults int
	// Atomics: the kernel takes an array a of one element, and each
	// thread makes one atomic operation on a[0] with value 1, thread tid
	// the operation Atomics[tid % len(Atomics)] (a branch on tid % n
	// when there are several). Shared: each thread allocates
	// cuda.shared.array(Threads). Fixes: the simulator fixes to run with.
	Atomics []AtomicOp
	Shared  bool
	Fixes   Fixes
}

// DefaultShape is two threads, one block, one call into one module.
var DefaultShape = Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}

// nameList is cuda, cu, cuda2, cuda3, ...
func nameList(n int) []string {
	names := make([]string, n)
	for i := range names {
		switch i {
		case 0:
			names[i] = "cuda"
		case 1:
			names[i] = "cu"
		default:
			names[i] = fmt.Sprintf("cuda%d", i)
		}
	}
	return names
}

var useAttrs = []string{"local", "threadIdx", "shared", "blockIdx"}

// Build makes the scenario a Shape describes: a kernel module "kernels"
// and device modules "dev1".."devM", each binding Names names to the real
// cuda module. The kernel reads cuda.threadIdx, then makes Calls calls to
// f<m>, module round-robin (each followed by syncthreads() with
// Syncthreads; with Branch, thread 0 makes them once and the others
// twice). A device function at depth d < Nest first calls the
// function at depth d+1 in the next module, then uses each of its names.
func (sh Shape) Build() (*Scenario, error) { return sh.BuildUpTo(MaxThreads) }

// BuildUpTo is Build allowing up to maxThreads threads per block (at most
// MaxStressThreads).
func (sh Shape) BuildUpTo(maxThreads int) (*Scenario, error) {
	maxThreads = min(maxThreads, MaxStressThreads)
	switch {
	case sh.Threads < 1 || sh.Threads > maxThreads:
		return nil, fmt.Errorf("threads must be 1..%d, got %d", maxThreads, sh.Threads)
	case sh.Blocks < 1 || sh.Blocks > MaxBlocks:
		return nil, fmt.Errorf("blocks must be 1..%d, got %d", MaxBlocks, sh.Blocks)
	case sh.Calls < 0 || sh.Calls > MaxStmts/2:
		return nil, fmt.Errorf("calls must be 0..%d, got %d", MaxStmts/2, sh.Calls)
	case sh.Modules < 1 || sh.Modules > MaxModules-1:
		return nil, fmt.Errorf("modules must be 1..%d, got %d", MaxModules-1, sh.Modules)
	case sh.Names < 1 || sh.Names > MaxNames:
		return nil, fmt.Errorf("names must be 1..%d, got %d", MaxNames, sh.Names)
	case sh.Nest < 0 || sh.Nest > MaxNest:
		return nil, fmt.Errorf("nest must be 0..%d, got %d", MaxNest, sh.Nest)
	case sh.Modules*(sh.Nest+1) > MaxFunctions:
		return nil, fmt.Errorf("modules x (nest+1) must be at most %d, got %d", MaxFunctions, sh.Modules*(sh.Nest+1))
	case sh.Hosts < 0 || sh.Hosts > MaxHosts:
		return nil, fmt.Errorf("hosts must be 1..%d, got %d", MaxHosts, sh.Hosts)
	}
	sc := &Scenario{Threads: sh.Threads, Blocks: sh.Blocks, Launches: 1}
	if sh.Hosts > 1 {
		sc.Hosts = sh.Hosts
	}
	sc.Faults = sh.Faults
	if sc.Faults != 0 && sh.MaxFaults > 1 {
		sc.MaxFaults = sh.MaxFaults
	}
	sc.Modules = append(sc.Modules, Module{Name: "kernels", Names: nameList(sh.Names)})
	if sh.Calls == 0 && !sh.HostCalls {
		// nothing calls a device function: a module of them would be
		// code no thread runs, which a report would show for nothing
		sh.Modules, sh.Nest = 0, 0
	}
	for m := 1; m <= sh.Modules; m++ {
		sc.Modules = append(sc.Modules, Module{Name: fmt.Sprintf("dev%d", m), Names: nameList(sh.Names)})
	}
	// fn[d][m-1] is the function at depth d in module m.
	index := func(d, m int) int { return d*sh.Modules + (m - 1) }
	for d := 0; d <= sh.Nest; d++ {
		for m := 1; m <= sh.Modules; m++ {
			name := fmt.Sprintf("f%d", m)
			if d > 0 {
				name = fmt.Sprintf("f%d_%d", m, d)
			}
			f := Function{Name: name, Module: m}
			if d < sh.Nest {
				f.Body = append(f.Body, Stmt{Kind: OpCall, Func: index(d+1, m%sh.Modules+1)})
			}
			for n := range sh.Names {
				f.Body = append(f.Body, Stmt{Kind: OpUse, Name: n, Attr: useAttrs[n%len(useAttrs)]})
			}
			sc.Functions = append(sc.Functions, f)
		}
	}
	sc.Kernel = append(sc.Kernel, Stmt{Kind: OpUse, Name: 0, Attr: "threadIdx"})
	if sh.HostCalls {
		f1 := HostStmt{Kind: HostCall, Func: index(0, 1)}
		sc.Host = []HostStmt{f1, {Kind: HostLaunch}, f1}
	}
	var calls []Stmt
	for c := range sh.Calls {
		calls = append(calls, Stmt{Kind: OpCall, Func: index(0, c%sh.Modules+1)})
		if sh.Syncthreads {
			calls = append(calls, Stmt{Kind: OpSync})
		}
	}
	if sh.Branch {
		calls = []Stmt{{Kind: OpIf, Cond: Cond{Op: CmpEq, Than: 0}, Then: calls, Else: []Stmt{{Kind: OpRepeat, Times: 2, Body: calls}}}}
	}
	if sh.Shared {
		sc.Kernel = append(sc.Kernel, Stmt{Kind: OpShared, Target: "s", Size: min(sh.Threads, MaxArraySize)})
	}
	if len(sh.Atomics) > 0 {
		sc.Arrays = []Array{{Name: "a", Size: 1}}
		sc.Kernel = append(sc.Kernel, atomicsBy(sh.Atomics, 0)...)
	}
	sc.Fixes = sh.Fixes
	sc.Kernel = append(sc.Kernel, calls...)
	return sc, sc.ValidateUpTo(maxThreads)
}

// atomicsBy is the kernel's atomics for Shape.Atomics from ops[i:]:
// "if tid % n == i: atomic.OPi a 0 1; else: ..." down to the last.
func atomicsBy(ops []AtomicOp, i int) []Stmt {
	op := []Stmt{{Kind: OpAtomic, Atomic: ops[i], Value: 1}}
	if i == len(ops)-1 {
		return op
	}
	return []Stmt{{Kind: OpIf, Cond: Cond{Mod: len(ops), Op: CmpEq, Than: i}, Then: op, Else: atomicsBy(ops, i+1)}}
}

// Validate checks a scenario's references and bounds.
func (sc *Scenario) Validate() error { return sc.ValidateUpTo(MaxThreads) }

// ValidateUpTo is Validate allowing up to maxThreads threads per block (at
// most MaxStressThreads).
func (sc *Scenario) ValidateUpTo(maxThreads int) error {
	maxThreads = min(maxThreads, MaxStressThreads)
	switch {
	case sc.Threads < 1 || sc.Threads > maxThreads:
		return fmt.Errorf("threads must be 1..%d, got %d", maxThreads, sc.Threads)
	case sc.Blocks < 1 || sc.Blocks > MaxBlocks:
		return fmt.Errorf("blocks must be 1..%d, got %d", MaxBlocks, sc.Blocks)
	case sc.Launches < 1 || sc.Launches > MaxLaunches:
		return fmt.Errorf("launches must be 1..%d, got %d", MaxLaunches, sc.Launches)
	case sc.Hosts < 0 || sc.Hosts > MaxHosts:
		return fmt.Errorf("hosts must be 1..%d, got %d", MaxHosts, sc.Hosts)
	case sc.validateFaults() != nil:
		return sc.validateFaults()
	case len(sc.Modules) < 1 || len(sc.Modules) > MaxModules:
		return fmt.Errorf("a scenario needs 1..%d modules (the first is the kernel's), got %d", MaxModules, len(sc.Modules))
	case len(sc.Functions) > MaxFunctions:
		return fmt.Errorf("at most %d device functions, got %d", MaxFunctions, len(sc.Functions))
	case len(sc.Kernel) > MaxStmts:
		return fmt.Errorf("the kernel has %d statements, at most %d", len(sc.Kernel), MaxStmts)
	}
	funcsIn := make([]int, len(sc.Modules))
	for _, f := range sc.Functions {
		if f.Module < 0 || f.Module >= len(sc.Modules) {
			return fmt.Errorf("device function %s: no module %d", f.Name, f.Module)
		}
		funcsIn[f.Module]++
	}
	for i, m := range sc.Modules {
		if len(m.Names) > MaxNames {
			return fmt.Errorf("module %s binds %d names, at most %d", m.Name, len(m.Names), MaxNames)
		}
		if len(m.Names) == 0 && i == 0 {
			return fmt.Errorf("module %s is the kernel's, which needs a global bound to cuda", m.Name)
		}
		if n := len(m.Names) + funcsIn[i] + 1; n > MaxGlobals {
			return fmt.Errorf("module %s has %d globals (names and functions), at most %d", m.Name, n, MaxGlobals)
		}
	}
	check := func(where string, mod int, body []Stmt) error {
		if n := countStmts(body); n > MaxStmts {
			return fmt.Errorf("%s has %d statements, at most %d", where, n, MaxStmts)
		}
		if n := runLen(body); n > MaxRun {
			return fmt.Errorf("%s runs %d statements once its repeats are unrolled, at most %d", where, n, MaxRun)
		}
		var walk func(body []Stmt, depth int) error
		walk = func(body []Stmt, depth int) error {
			for _, s := range body {
				switch s.Kind {
				case OpUse, OpSync, OpIf, OpAtomic, OpShared: // cuda.syncthreads(), a branch's condition, cuda.atomic and cuda.shared load a name too
					if s.Name < 0 || s.Name >= len(sc.Modules[mod].Names) {
						return fmt.Errorf("%s uses name #%d, but module %s binds %d names", where, s.Name, sc.Modules[mod].Name, len(sc.Modules[mod].Names))
					}
					if s.Kind == OpUse {
						if err := checkFakeAttr(s.Attr); err != nil {
							return fmt.Errorf("%s: %v", where, err)
						}
						if s.Target != "" && !isIdent(s.Target) {
							return fmt.Errorf("%s stores to %q, not a Python name", where, s.Target)
						}
						for _, a := range strings.Split(s.Rest, ".") {
							if s.Rest != "" && !isIdent(a) {
								return fmt.Errorf("%s reads attribute %q, not a Python name", where, a)
							}
						}
					}
				case OpCall:
					if s.Func < 0 || s.Func >= len(sc.Functions) {
						return fmt.Errorf("%s calls device function #%d, which does not exist", where, s.Func)
					}
					if want := len(sc.Functions[s.Func].Params); len(s.Args) != want {
						return fmt.Errorf("%s calls %s with %d arguments, but it takes %d", where, sc.Functions[s.Func].Name, len(s.Args), want)
					}
					for _, a := range s.Args {
						if _, err := strconv.Atoi(a); err != nil && !isIdent(a) {
							return fmt.Errorf("%s passes %q, neither a whole number nor a name", where, a)
						}
					}
				case OpRaise, OpRepeat, OpStore, OpLoad:
				default:
					return fmt.Errorf("%s has a statement of unknown kind %d", where, s.Kind)
				}
				switch s.Kind {
				case OpAtomic:
					if err := sc.checkAtomic(where, s); err != nil {
						return err
					}
				case OpShared:
					if err := checkShared(where, s); err != nil {
						return err
					}
				case OpStore, OpLoad:
					if err := checkElement(where, s); err != nil {
						return err
					}
				}
				switch s.Kind {
				case OpUse, OpSync, OpIf, OpAtomic, OpShared, OpCall, OpRaise, OpRepeat, OpStore, OpLoad:
				default:
					return fmt.Errorf("%s has a statement of unknown kind %d", where, s.Kind)
				}
				switch s.Kind {
				case OpIf:
					if s.Cond.Op < CmpEq || s.Cond.Op > CmpGe {
						return fmt.Errorf("%s has a condition with unknown comparison %d", where, s.Cond.Op)
					}
					if s.Cond.Than < 0 || s.Cond.Than > MaxStressThreads {
						return fmt.Errorf("%s compares the thread index with %d, want 0..%d", where, s.Cond.Than, MaxStressThreads)
					}
					if s.Cond.Var > CondBid {
						return fmt.Errorf("%s tests unknown index %d", where, s.Cond.Var)
					}
					if s.Cond.Mod < 0 || s.Cond.Mod > MaxStressThreads {
						return fmt.Errorf("%s takes the index modulo %d, want 1..%d", where, s.Cond.Mod, MaxStressThreads)
					}
				case OpRepeat:
					if s.Times < 1 || s.Times > MaxRepeat {
						return fmt.Errorf("%s repeats %d times, want 1..%d", where, s.Times, MaxRepeat)
					}
				}
				if s.Kind == OpIf || s.Kind == OpRepeat {
					if depth >= MaxDepth {
						return fmt.Errorf("%s nests branches and repeats more than %d deep", where, MaxDepth)
					}
					for _, b := range [][]Stmt{s.Then, s.Else, s.Body} {
						if err := walk(b, depth+1); err != nil {
							return err
						}
					}
				} else if s.Then != nil || s.Else != nil || s.Body != nil {
					return fmt.Errorf("%s has a statement of kind %d with a body", where, s.Kind)
				}
			}
			return nil
		}
		return walk(body, 0)
	}
	if err := check("the kernel", 0, sc.Kernel); err != nil {
		return err
	}
	if sc.Host != nil {
		launches := 0
		for _, h := range sc.Host {
			switch h.Kind {
			case HostLaunch:
				launches++
			case HostCall:
				if h.Func < 0 || h.Func >= len(sc.Functions) {
					return fmt.Errorf("the host calls device function #%d, which does not exist", h.Func)
				}
				if want := len(sc.Functions[h.Func].Params); len(h.Args) != want {
					return fmt.Errorf("the host calls %s with %d arguments, but it takes %d", sc.Functions[h.Func].Name, len(h.Args), want)
				}
			default:
				return fmt.Errorf("the host has a statement of unknown kind %d", h.Kind)
			}
		}
		if len(sc.Host) > MaxStmts {
			return fmt.Errorf("the host has %d statements, at most %d", len(sc.Host), MaxStmts)
		}
		if launches != sc.Launches {
			return fmt.Errorf("the host launches %d, but the scenario's launches say %d", launches, sc.Launches)
		}
	}
	for _, f := range sc.Functions {
		if err := check("device function "+f.Name, f.Module, f.Body); err != nil {
			return err
		}
	}
	if err := sc.validateMemory(); err != nil {
		return err
	}
	// Calls must not recurse: the model gives each thread a fixed stack.
	if d := sc.CallDepth(); d < 0 {
		return fmt.Errorf("device functions call each other in a cycle")
	} else if d > MaxNest+1 {
		return fmt.Errorf("device calls nest %d deep, at most %d", d, MaxNest+1)
	}
	return nil
}

// CallDepth is the deepest chain of device calls from the kernel or from
// the host, or -1 on a cycle.
func (sc *Scenario) CallDepth() int {
	const (
		unseen = iota
		active
		finished
	)
	state := make([]int, len(sc.Functions))
	depth := make([]int, len(sc.Functions))
	var visit func(f int) int
	visit = func(f int) int {
		switch state[f] {
		case active:
			return -1
		case finished:
			return depth[f]
		}
		state[f] = active
		d := 1
		for _, s := range calls(sc.Functions[f].Body, nil) {
			c := visit(s.Func)
			if c < 0 {
				return -1
			}
			d = max(d, c+1)
		}
		state[f], depth[f] = finished, d
		return d
	}
	best := 0
	for _, s := range calls(sc.Kernel, nil) {
		c := visit(s.Func)
		if c < 0 {
			return -1
		}
		best = max(best, c)
	}
	for _, h := range sc.Host {
		if h.Kind == HostCall {
			c := visit(h.Func)
			if c < 0 {
				return -1
			}
			best = max(best, c)
		}
	}
	return best
}

// calls appends body's calls, in branches and repeats too, to out.
func calls(body []Stmt, out []Stmt) []Stmt {
	for _, s := range body {
		switch s.Kind {
		case OpCall:
			out = append(out, s)
		case OpIf:
			out = calls(s.Else, calls(s.Then, out))
		case OpRepeat:
			out = calls(s.Body, out)
		}
	}
	return out
}

// countStmts counts body's statements, those in branches and repeats
// included.
func countStmts(body []Stmt) int {
	n := len(body)
	for _, s := range body {
		n += countStmts(s.Then) + countStmts(s.Else) + countStmts(s.Body)
	}
	return n
}

// runLen bounds the statements one run of body makes, whichever arm
// each branch takes (a branch's condition counts as one), with its
// repeats unrolled; it stops counting past MaxRun.
func runLen(body []Stmt) int {
	n := 0
	for _, s := range body {
		switch s.Kind {
		case OpIf:
			n += 1 + max(runLen(s.Then), runLen(s.Else))
		case OpRepeat:
			n += max(s.Times, 0) * runLen(s.Body)
		default:
			n++
		}
		if n > MaxRun {
			return n
		}
	}
	return n
}

// Branches reports whether some body of sc branches on the thread index.
func (sc *Scenario) Branches() bool {
	var has func(body []Stmt) bool
	has = func(body []Stmt) bool {
		for _, s := range body {
			if s.Kind == OpIf || has(s.Then) || has(s.Else) || has(s.Body) {
				return true
			}
		}
		return false
	}
	if has(sc.Kernel) {
		return true
	}
	for _, f := range sc.Functions {
		if has(f.Body) {
			return true
		}
	}
	return false
}

// PythonText renders a statement as the Python line it stands for.
func (sc *Scenario) PythonText(mod int, s Stmt) string {
	switch s.Kind {
	case OpUse:
		return s.useText(sc.Modules[mod].Names[s.Name])
	case OpCall:
		return sc.Functions[s.Func].Call(s.Args)
	case OpSync:
		return fmt.Sprintf("%s.syncthreads()", sc.Modules[mod].Names[s.Name])
	case OpRaise:
		return "raise KernelError"
	case OpIf:
		return "if " + s.Cond.python(sc.Modules[mod].Names[s.Name]) + ":"
	case OpRepeat:
		return fmt.Sprintf("for _ in range(%d):", s.Times)
	case OpAtomic:
		return sc.atomicText(sc.Modules[mod].Names[s.Name], s)
	case OpShared:
		return sharedText(sc.Modules[mod].Names[s.Name], s)
	case OpStore, OpLoad:
		return elementText(s)
	}
	return "?"
}

// StmtString renders statement s of a body of module mod as the scenario
// file spells it ("use cuda.local", "call f1", "syncthreads", "raise",
// "if tid == 0: call f1; else: raise; end", "repeat 2: call f1; end").
func (sc *Scenario) StmtString(mod int, s Stmt) string {
	switch s.Kind {
	case OpIf:
		out := "if " + s.Cond.String() + ": " + sc.blockString(mod, s.Then)
		if len(s.Else) > 0 {
			out += "; else: " + sc.blockString(mod, s.Else)
		}
		return out + "; end"
	case OpRepeat:
		return fmt.Sprintf("repeat %d: %s; end", s.Times, sc.blockString(mod, s.Body))
	case OpUse:
		if s.Target != "" {
			return sc.PythonText(mod, s)
		}
		return "use " + sc.PythonText(mod, s)
	case OpCall:
		return "call " + callText(sc.Functions[s.Func].Name, s.Args)
	case OpSync:
		return "syncthreads"
	case OpRaise:
		return "raise"
	case OpAtomic:
		return sc.atomicString(s)
	case OpShared:
		return fmt.Sprintf("shared.array %s %d", s.Target, s.Size)
	case OpStore:
		return fmt.Sprintf("store %s %d %d", s.Target, s.Index, s.Value)
	case OpLoad:
		return fmt.Sprintf("load %s %d", s.Target, s.Index)
	}
	return ""
}

// BodyString renders a body of module mod as the scenario file spells it:
// its statements joined by "; ".
func (sc *Scenario) BodyString(mod int, body []Stmt) string {
	parts := make([]string, len(body))
	for i, s := range body {
		parts[i] = sc.StmtString(mod, s)
	}
	return strings.Join(parts, "; ")
}

// blockString is BodyString for the body of a branch or a repeat, where
// Python needs a statement: "pass" when it has none.
func (sc *Scenario) blockString(mod int, body []Stmt) string {
	if len(body) == 0 {
		return "pass"
	}
	return sc.BodyString(mod, body)
}

// String renders the scenario in the scenario file format (see Parse); it
// is the canonical rendering used in summaries and traces.
func (sc *Scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "threads %d\nblocks %d\nlaunches %d\n", sc.Threads, sc.Blocks, sc.Launches)
	if sc.NumHosts() > 1 {
		fmt.Fprintf(&b, "hosts %d\n", sc.NumHosts())
	}
	b.WriteString(sc.faultLines())
	b.WriteString(sc.memoryLines())
	for _, m := range sc.Modules {
		b.WriteString(strings.TrimSpace("module "+m.Name+" "+strings.Join(m.Declared(), " ")) + "\n")
	}
	body := sc.blockString // an empty body is "pass", as Python writes it
	for _, f := range sc.Functions {
		name := f.Name
		if len(f.Params) > 0 {
			name = callText(f.Name, f.Params)
		}
		fmt.Fprintf(&b, "device %s in %s: %s\n", name, sc.Modules[f.Module].Name, body(f.Module, f.Body))
	}
	fmt.Fprintf(&b, "kernel: %s\n", body(0, sc.Kernel))
	if sc.Host != nil {
		parts := make([]string, len(sc.Host))
		for i, h := range sc.Host {
			parts[i] = "launch"
			if h.Kind == HostCall {
				parts[i] = "call " + callText(sc.Functions[h.Func].Name, h.Args)
			}
		}
		fmt.Fprintf(&b, "host: %s\n", strings.Join(parts, "; "))
	}
	return b.String()
}

// useText is a use's Python through the module global g: the attribute
// chain, stored to its target if it has one ("i = cuda.threadIdx.x").
func (s Stmt) useText(g string) string {
	text := g + "." + s.Attr
	if s.Rest != "" {
		text += "." + s.Rest
	}
	if s.Target != "" {
		text = s.Target + " = " + text
	}
	return text
}

// callText is a call as the scenario file writes it: "f" without
// arguments, "f(i, 3)" with.
func callText(name string, args []string) string {
	if len(args) == 0 {
		return name
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// Declared is the module line's globals in their order: Names, with
// Others as NAME=VALUE in their places.
func (m Module) Declared() []string {
	var out []string
	for i := 0; i <= len(m.Names); i++ {
		for _, o := range m.Others {
			if o.At == i {
				out = append(out, o.Name+"="+o.Value)
			}
		}
		if i < len(m.Names) {
			out = append(out, m.Names[i])
		}
	}
	return out
}
