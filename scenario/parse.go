package scenario

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Parse reads a scenario file. The format, one directive a line, "#" starts
// a comment:
//
//	threads 3                  threads per block (default 2)
//	blocks 1                   blocks per launch (default 1)
//	launches 1                 launches, one after another (default 1)
//	hosts 1                    host threads, each launching at once (default 1)
//	faults interrupt,raise     faults to explore (faults.go; default none)
//	max-faults 1               faults per execution (default 1)
//	module kernels cuda        a module and the globals bound to the real
//	module helpers cuda cu     cuda module; the first is the kernel's
//	module mathlib np=numpy N=4   other globals: NAME=VALUE
//	device f in helpers: call g; use cuda.local; use cu.threadIdx
//	device g in helpers: use cuda.local
//	device h(x) in helpers: pass   a device function with parameters
//	kernel: use cuda.threadIdx; call f; syncthreads; raise
//	host: call g; launch; call g   the host thread's program (optional)
//	array a 4                  a kernel argument: an int64 array of 4 zeros
//	fix atomics-one-lock       run the simulator with a fix (docs/simulator-fixes.md)
//	kernel: atomic.add a 0 1; shared.array s 32
//
// Statements are "use NAME.ATTR" (NAME a global of the function's module,
// ATTR one of the fake module's; "use NAME.ATTR.MORE" reads on, and
// "TARGET = NAME.ATTR..." stores the value to a local name), "call FUNC" or
// "call FUNC(ARG, ...)" (whole numbers, parameters, names assigned
// before), "syncthreads" and "raise" (the kernel code raises),
// "atomic.OP ARRAY INDEX VALUE" (cuda.atomic.OP on a kernel argument),
// "shared.array NAME SIZE", "store NAME INDEX VALUE" and "load NAME
// INDEX" (an element of that shared array; memory.go), and two
// that hold statements, each closed by "end" (or the end of the line):
//
//	kernel: if tid == 0: call f; use cuda.local; else: call g; end; syncthreads
//	device f in helpers: repeat 3: use cuda.local; end
//
// "if tid OP N:" (OP one of == != < <= > >=) branches on the thread's
// index in its block: it stands for "if cuda.threadIdx.x == 0:", whose
// LOAD_GLOBAL of the module's first global bound to cuda is a use of cuda
// like any other (checked as "use cuda.threadIdx"); "if bid OP N:" on its
// block's index (cuda.blockIdx.x), and either may be taken modulo a whole
// number ("if tid % 2 == 0:"); "else:" starts the other arm. "repeat N:"
// (N 1..MaxRepeat) stands for "for _ in range(N):".
// Blocks nest up to MaxDepth deep; "pass" is an empty statement. The
// host's statements are "launch" (the next launch; their number sets
// launches, or must agree with it) and "call FUNC" (a device function
// called from the host, outside any launch); without a host line the host
// only launches, launches times. Errors
// name the line: "line 4: ...", and quote what is not a Python name. The
// bounds are the Max constants (scenario.go), with at most MaxThreads
// threads per block; ParseUpTo allows more.
func Parse(r io.Reader) (*Scenario, error) { return ParseUpTo(r, MaxThreads) }

// MaxLineBytes bounds a scenario file's lines (a kernel of MaxStmts
// statements takes a few hundred bytes).
const MaxLineBytes = 1 << 16

// ParseUpTo is Parse allowing up to maxThreads threads per block (at most
// MaxStressThreads, for the goroutine backend).
func ParseUpTo(r io.Reader, maxThreads int) (*Scenario, error) {
	sc := &Scenario{Threads: 2, Blocks: 1, Launches: 1}
	type pending struct {
		line      int
		where     string
		module    int
		text      string
		functionI int // -1 for the kernel
	}
	var bodies []pending
	modules := map[string]int{}
	functions := map[string]int{}
	seen := map[string]bool{}
	sawKernel := false
	hostLine, hostText := 0, ""
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 4096), MaxLineBytes+1) // the line and its newline
	n := 0
	for in.Scan() {
		n++
		line := in.Text()
		if n == 1 {
			// a byte order mark, as some Windows editors write
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		fail := func(format string, args ...any) (*Scenario, error) {
			return nil, fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
		}
		word, rest, _ := strings.Cut(line, " ")
		switch {
		case word == "threads" || word == "blocks" || word == "launches" || word == "hosts":
			if seen[word] {
				return fail("%s given twice", word)
			}
			seen[word] = true
			v, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				return fail("%s takes a whole number, got %q", word, strings.TrimSpace(rest))
			}
			switch word {
			case "threads":
				if v < 1 || v > maxThreads {
					return fail("threads must be 1..%d, got %d", maxThreads, v)
				}
				sc.Threads = v
			case "blocks":
				if v < 1 || v > MaxBlocks {
					return fail("blocks must be 1..%d, got %d", MaxBlocks, v)
				}
				sc.Blocks = v
			case "hosts":
				if v < 1 || v > MaxHosts {
					return fail("hosts must be 1..%d, got %d", MaxHosts, v)
				}
				if v > 1 { // one host is the zero value
					sc.Hosts = v
				}
			default:
				if v < 1 || v > MaxLaunches {
					return fail("launches must be 1..%d, got %d", MaxLaunches, v)
				}
				sc.Launches = v
			}
		case word == "module":
			f := strings.Fields(rest)
			if len(f) < 1 {
				return fail("module needs a name and its globals bound to cuda: module NAME cuda [cu ...]")
			}
			mod := Module{Name: f[0]}
			all := []string{f[0]}
			for _, g := range f[1:] {
				name, value, other := strings.Cut(g, "=")
				all = append(all, name)
				if !other {
					mod.Names = append(mod.Names, g)
					continue
				}
				if _, err := strconv.Atoi(value); err != nil && !isDotted(value) {
					return fail("module %s: %s=%s: the value of another global is a whole number or what it stands for (np=numpy, SIZE=32)", pyName(f[0]), pyName(name), pyName(value))
				}
				mod.Others = append(mod.Others, Other{Name: name, Value: value, At: len(mod.Names)})
			}
			if len(mod.Names) == 0 && len(sc.Modules) == 0 {
				return fail("module %s is the kernel's (the first module), which needs a global bound to cuda: module %s cuda", pyName(f[0]), pyName(f[0]))
			}
			if _, dup := modules[f[0]]; dup {
				return fail("module %s defined twice", pyName(f[0]))
			}
			if err := distinctIdents(all); err != nil {
				return fail("module %s: %v", pyName(f[0]), err)
			}
			if len(mod.Others) > MaxOthers {
				return fail("module %s has %d other globals, at most %d", pyName(f[0]), len(mod.Others), MaxOthers)
			}
			modules[f[0]] = len(sc.Modules)
			sc.Modules = append(sc.Modules, mod)
		case word == "device":
			head, body, ok := strings.Cut(rest, ":")
			params, f, err := deviceHead(head)
			if !ok {
				err = errors.New("want: device NAME in MODULE: STATEMENT; ... (or device NAME(PARAM, ...) in MODULE: ...)")
			}
			if err != nil {
				return fail("%v", err)
			}
			m, known := modules[f[2]]
			if !known {
				return fail("device %s: no module %s (define modules before their functions)", pyName(f[0]), pyName(f[2]))
			}
			if _, dup := functions[f[0]]; dup {
				return fail("device function %s defined twice", pyName(f[0]))
			}
			if !isIdent(f[0]) {
				return fail("%q is not a Python name", f[0])
			}
			functions[f[0]] = len(sc.Functions)
			sc.Functions = append(sc.Functions, Function{Name: f[0], Module: m, Params: params})
			bodies = append(bodies, pending{n, "device " + f[0], m, body, len(sc.Functions) - 1})
		case strings.HasPrefix(line, "kernel:") || word == "kernel":
			_, body, ok := strings.Cut(line, ":")
			if !ok {
				return fail("want: kernel: STATEMENT; ...")
			}
			if sawKernel {
				return fail("kernel given twice: a scenario launches one kernel (its launches line repeats it); check another kernel in a scenario of its own")
			}
			if len(sc.Modules) == 0 {
				return fail("kernel before any module: the first module is the kernel's")
			}
			sawKernel = true
			bodies = append(bodies, pending{n, "kernel", 0, body, -1})
		case strings.HasPrefix(line, "host:") || word == "host":
			_, body, ok := strings.Cut(line, ":")
			if !ok {
				return fail("want: host: launch; call FUNC; ...")
			}
			if hostLine != 0 {
				return fail("host given twice")
			}
			hostLine, hostText = n, body
		case word == "array":
			if err := parseArray(sc, rest); err != nil {
				return fail("%v", err)
			}
		case word == "fix":
			if seen[word] {
				return fail("fix given twice")
			}
			seen[word] = true
			fixes, err := ParseFixes(strings.ReplaceAll(rest, " ", ","))
			if err != nil {
				return fail("%v", err)
			}
			sc.Fixes = fixes
		case word == "faults" || word == "max-faults":
			if seen[word] {
				return fail("%s given twice", word)
			}
			seen[word] = true
			if err := sc.parseFaultDirective(word, rest); err != nil {
				return fail("%v", err)
			}
		default:
			return fail("unknown directive %q (want threads, blocks, launches, hosts, faults, max-faults, fix, array, module, device, kernel or host)", word)
		}
	}
	if err := in.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, MaxLineBytes)
	} else if err != nil {
		return nil, err
	}
	if len(sc.Modules) == 0 {
		return nil, fmt.Errorf("no module: a scenario needs at least the kernel's module")
	}
	if !sawKernel {
		return nil, fmt.Errorf("no kernel line")
	}
	for _, p := range bodies {
		var params []string
		if p.functionI >= 0 {
			params = sc.Functions[p.functionI].Params
		}
		stmts, err := parseBody(sc, p.module, params, p.text, functions)
		if err == nil {
			err = bodyBounds(stmts)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", p.line, p.where, err)
		}
		if p.functionI < 0 {
			sc.Kernel = stmts
		} else {
			sc.Functions[p.functionI].Body = stmts
		}
	}
	if hostLine != 0 {
		if err := parseHost(sc, hostText, functions, seen["launches"]); err != nil {
			return nil, fmt.Errorf("line %d: host: %v", hostLine, err)
		}
	}
	if err := sc.ValidateUpTo(maxThreads); err != nil {
		return nil, err
	}
	return sc, nil
}

// parseHost reads the host's program into sc.Host (nil when it calls
// nothing: then it is launches alone) and sets sc.Launches from it, or
// checks it against the launches line when there is one.
func parseHost(sc *Scenario, text string, functions map[string]int, launchesGiven bool) error {
	var host []HostStmt
	calls := false
	for _, part := range strings.Split(text, ";") {
		f := strings.Fields(part)
		switch {
		case len(f) == 0:
		case f[0] == "launch" && len(f) == 1:
			host = append(host, HostStmt{Kind: HostLaunch})
		case f[0] == "call" && len(f) >= 2:
			fn, args, err := parseCall(sc, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "call")), functions, func(string) bool { return false })
			if err != nil {
				return err
			}
			host = append(host, HostStmt{Kind: HostCall, Func: fn, Args: args})
			calls = true
		default:
			return fmt.Errorf("unknown statement %q (want launch or call FUNC)", strings.TrimSpace(part))
		}
	}
	if len(host) > MaxStmts {
		return fmt.Errorf("%d statements, at most %d", len(host), MaxStmts)
	}
	launches := 0
	for _, h := range host {
		if h.Kind == HostLaunch {
			launches++
		}
	}
	switch {
	case launches == 0:
		return fmt.Errorf("the host never launches the kernel (want at least one launch)")
	case launchesGiven && launches != sc.Launches:
		return fmt.Errorf("the host launches %d, but the launches line says %d", launches, sc.Launches)
	}
	sc.Launches = launches
	if calls {
		sc.Host = host
	}
	return nil
}

// parseBody reads a kernel's or device function's statements. Branches and
// repeats open a block that "end" closes (the end of the line closes any
// still open): "if tid == 0: call f; else: use cuda.local; end".
func parseBody(sc *Scenario, mod int, params []string, text string, functions map[string]int) ([]Stmt, error) {
	type open struct {
		s      Stmt
		inElse bool
	}
	var out []Stmt
	var stack []open
	sites := 0 // the shared.array call sites so far
	// shared are the shared.array statements so far by their target, the
	// last one a name was assigned by
	shared := map[string]Stmt{}
	// scopes are the local names a call may pass: the function's
	// parameters, then the names assigned (TARGET = ...) before, in this
	// block and the blocks around it (a name assigned in a branch's arm or
	// a repeat's body is not known after it).
	scopes := []map[string]bool{{}}
	for _, p := range params {
		scopes[0][p] = true
	}
	known := func(name string) bool {
		return slices.ContainsFunc(scopes, func(s map[string]bool) bool { return s[name] })
	}
	add := func(s Stmt) {
		if len(stack) == 0 {
			out = append(out, s)
			return
		}
		switch top := &stack[len(stack)-1]; {
		case top.s.Kind == OpRepeat:
			top.s.Body = append(top.s.Body, s)
		case top.inElse:
			top.s.Else = append(top.s.Else, s)
		default:
			top.s.Then = append(top.s.Then, s)
		}
	}
	closeTop := func() {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		scopes = scopes[:len(scopes)-1]
		add(top.s)
	}
	for _, part := range strings.Split(text, ";") {
		rest := strings.TrimSpace(part)
		// The headers a part opens with: if COND:, else:, repeat N:.
		for {
			head, after, ok := strings.Cut(rest, ":")
			f := strings.Fields(head)
			if !ok || len(f) == 0 || (f[0] != "if" && f[0] != "else" && f[0] != "repeat") {
				break
			}
			switch f[0] {
			case "if":
				cond, err := parseCond(f[1:])
				if err != nil {
					return nil, err
				}
				if len(stack) >= MaxDepth {
					return nil, fmt.Errorf("branches and repeats nest more than %d deep", MaxDepth)
				}
				if len(sc.Modules[mod].Names) == 0 {
					return nil, noCuda(sc, mod, "a branch's condition (cuda.threadIdx.x)")
				}
				stack = append(stack, open{s: Stmt{Kind: OpIf, Cond: cond}})
				scopes = append(scopes, map[string]bool{})
			case "else":
				if len(f) != 1 {
					return nil, fmt.Errorf("want else: STATEMENT; ..., got %q", strings.TrimSpace(part))
				}
				if len(stack) == 0 || stack[len(stack)-1].s.Kind != OpIf || stack[len(stack)-1].inElse {
					return nil, fmt.Errorf("else without its if (close a repeat or an if's else with end first)")
				}
				stack[len(stack)-1].inElse = true
				scopes[len(scopes)-1] = map[string]bool{}
			case "repeat":
				n, err := strconv.Atoi(strings.Join(f[1:], " "))
				if err != nil || len(f) != 2 {
					return nil, fmt.Errorf("want repeat N: STATEMENT; ..., got %q", strings.TrimSpace(part))
				}
				if n < 1 || n > MaxRepeat {
					return nil, fmt.Errorf("repeat %d: the count must be 1..%d", n, MaxRepeat)
				}
				if len(stack) >= MaxDepth {
					return nil, fmt.Errorf("branches and repeats nest more than %d deep", MaxDepth)
				}
				stack = append(stack, open{s: Stmt{Kind: OpRepeat, Times: n}})
				scopes = append(scopes, map[string]bool{})
			}
			rest = strings.TrimSpace(after)
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "end" && len(f) == 1:
			if len(stack) == 0 {
				return nil, fmt.Errorf("end without an if or a repeat to close")
			}
			closeTop()
		case f[0] == "pass" && len(f) == 1: // Python's empty statement: no step
		case f[0] == "use" && len(f) == 2, len(f) == 3 && f[1] == "=":
			// use NAME.ATTR[.MORE], or TARGET = NAME.ATTR[.MORE]
			st := Stmt{Kind: OpUse}
			expr := f[1]
			if f[1] == "=" {
				if !isIdent(f[0]) {
					return nil, fmt.Errorf("want TARGET = NAME.ATTR (TARGET a Python name), got %q", rest)
				}
				st.Target, expr = f[0], f[2]
			}
			parts := strings.Split(expr, ".")
			if len(parts) < 2 || slices.IndexFunc(parts, func(p string) bool { return !isIdent(p) }) >= 0 {
				return nil, fmt.Errorf("want use NAME.ATTR (or NAME.ATTR.ATTR..., or TARGET = NAME.ATTR), got %q", rest)
			}
			name := parts[0]
			st.Attr, st.Rest = parts[1], strings.Join(parts[2:], ".")
			st.Name = slices.Index(sc.Modules[mod].Names, name)
			if st.Name < 0 && len(sc.Modules[mod].Names) == 0 {
				return nil, noCuda(sc, mod, "use "+expr)
			}
			if st.Name < 0 {
				return nil, fmt.Errorf("%s is not a global of module %s bound to cuda (it binds %s)", pyName(name), sc.Modules[mod].Name, strings.Join(sc.Modules[mod].Names, ", "))
			}
			if err := checkFakeAttr(st.Attr); err != nil {
				return nil, fmt.Errorf("%s.%s: %v", name, pyName(st.Attr), err)
			}
			if st.Target != "" {
				scopes[len(scopes)-1][st.Target] = true
			}
			add(st)
		case f[0] == "call" && len(f) >= 2:
			fn, args, err := parseCall(sc, strings.TrimSpace(strings.TrimPrefix(rest, "call")), functions, known)
			if err != nil {
				return nil, err
			}
			add(Stmt{Kind: OpCall, Func: fn, Args: args})
		case f[0] == "syncthreads" && len(f) == 1:
			if len(sc.Modules[mod].Names) == 0 {
				return nil, noCuda(sc, mod, "syncthreads (cuda.syncthreads())")
			}
			add(Stmt{Kind: OpSync})
		case f[0] == "raise" && len(f) == 1:
			add(Stmt{Kind: OpRaise})
		case strings.HasPrefix(f[0], "atomic."), f[0] == "shared.array":
			if len(sc.Modules[mod].Names) == 0 {
				return nil, noCuda(sc, mod, f[0])
			}
			var st Stmt
			var err error
			if f[0] == "shared.array" {
				st, err = parseShared(f)
				st.Site = sites
				sites++
			} else {
				st, err = parseAtomic(sc, f)
			}
			if err != nil {
				return nil, err
			}
			if st.Kind == OpShared {
				scopes[len(scopes)-1][st.Target] = true
				shared[st.Target] = st
			}
			add(st)
		case f[0] == "store", f[0] == "load":
			st, err := parseElement(sc, f, shared, known)
			if err != nil {
				return nil, err
			}
			add(st)
		default:
			return nil, fmt.Errorf("unknown statement %q (want use NAME.ATTR, TARGET = NAME.ATTR, call FUNC, syncthreads, raise, pass, atomic.OP ARRAY INDEX VALUE, shared.array NAME SIZE, store NAME INDEX VALUE, load NAME INDEX, if tid OP N:, else:, repeat N: or end)", rest)
		}
	}
	for len(stack) > 0 {
		closeTop()
	}
	return out, nil
}

// bodyBounds checks a body's size against MaxStmts and MaxRun, so that the
// error names the body's line (Validate checks them again).
func bodyBounds(body []Stmt) error {
	if n := countStmts(body); n > MaxStmts {
		return fmt.Errorf("%d statements, at most %d", n, MaxStmts)
	}
	if n := runLen(body); n > MaxRun {
		return fmt.Errorf("runs %d statements once its repeats are unrolled, at most %d", n, MaxRun)
	}
	return nil
}

// parseCond reads a branch's condition, "tid OP N" or "bid OP N", either
// index optionally "% M" ("tid % 2 == 0"), the parts separated by spaces:
// tid is the thread's index in its block, cuda.threadIdx.x, bid its
// block's index in the launch, cuda.blockIdx.x (each read through the
// module's first global bound to cuda); OP one of == != < <= > >=; M and
// N whole numbers.
func parseCond(f []string) (Cond, error) {
	text := strings.Join(f, " ")
	var c Cond
	if len(f) == 5 && f[1] == "%" {
		m, err := strconv.Atoi(f[2])
		if err != nil || m < 1 || m > MaxStressThreads {
			return Cond{}, fmt.Errorf("if %q: take %s modulo a whole number 1..%d, got %q", text, pyName(f[0]), MaxStressThreads, f[2])
		}
		c.Mod = m
		f = append(f[:1:1], f[3:]...)
	}
	if len(f) != 3 {
		return Cond{}, fmt.Errorf("want if tid OP N: or if tid %% M OP N: (tid or bid; OP one of == != < <= > >=; spaces between), got %q", "if "+text)
	}
	switch f[0] {
	case "tid":
	case "bid":
		c.Var = CondBid
	default:
		return Cond{}, fmt.Errorf("if %q: unknown name %s (a branch may test tid, the thread's index cuda.threadIdx.x, or bid, its block's cuda.blockIdx.x)", text, pyName(f[0]))
	}
	for o := CmpEq; o <= CmpGe; o++ {
		if f[1] == o.String() {
			c.Op = o
		}
	}
	if c.Op == 0 {
		return Cond{}, fmt.Errorf("if %q: unknown comparison %q (want == != < <= > >=)", text, f[1])
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 || n > MaxStressThreads {
		return Cond{}, fmt.Errorf("if %q: compare %s with a whole number 0..%d, got %q", text, f[0], MaxStressThreads, f[2])
	}
	c.Than = n
	return c, nil
}

// pyName renders a name from the file for a message: as it is when it is a
// Python name, else quoted, so no control character reaches a terminal.
func pyName(s string) string {
	if isIdent(s) {
		return s
	}
	return strconv.Quote(s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func distinctIdents(f []string) error {
	seen := map[string]bool{}
	for _, s := range f {
		if !isIdent(s) {
			return fmt.Errorf("%q is not a Python name", s)
		}
		if seen[s] {
			return fmt.Errorf("%s appears twice", s)
		}
		seen[s] = true
	}
	return nil
}

// noCuda is the error for a statement that loads cuda in a module that
// binds no name to it.
func noCuda(sc *Scenario, mod int, what string) error {
	return fmt.Errorf("%s loads cuda, but module %s binds no name to cuda (module %s cuda)", what, sc.Modules[mod].Name, sc.Modules[mod].Name)
}

// deviceHead reads a device line's head, "NAME in MODULE" or
// "NAME(PARAM, ...) in MODULE", into the parameters and the fields NAME,
// "in", MODULE.
func deviceHead(head string) (params, f []string, err error) {
	if open := strings.IndexByte(head, '('); open >= 0 {
		end := strings.IndexByte(head, ')')
		if end < open {
			return nil, nil, fmt.Errorf("device %q: want NAME(PARAM, ...) in MODULE", strings.TrimSpace(head))
		}
		if inner := strings.TrimSpace(head[open+1 : end]); inner != "" {
			for _, p := range strings.Split(inner, ",") {
				params = append(params, strings.TrimSpace(p))
			}
			if err := distinctIdents(params); err != nil {
				return nil, nil, fmt.Errorf("device %s: parameters: %v", pyName(strings.TrimSpace(head[:open])), err)
			}
		}
		head = head[:open] + " " + head[end+1:]
	}
	f = strings.Fields(head)
	if len(f) != 3 || f[1] != "in" {
		return nil, nil, errors.New("want: device NAME in MODULE: STATEMENT; ... (or device NAME(PARAM, ...) in MODULE: ...)")
	}
	return params, f, nil
}

// parseCall reads a call's "FUNC" or "FUNC(ARG, ...)": each ARG a whole
// number or a local name known says the caller has (a parameter, or a
// name assigned before), as many as FUNC has parameters. The arguments
// change nothing the swap does (they are the caller's locals and
// constants); they make the scenario read as the kernel does.
func parseCall(sc *Scenario, text string, functions map[string]int, known func(string) bool) (int, []string, error) {
	name, argText, hasArgs := strings.Cut(text, "(")
	name = strings.TrimSpace(name)
	var args []string
	if hasArgs {
		inner, ok := strings.CutSuffix(strings.TrimSpace(argText), ")")
		if !ok {
			return 0, nil, fmt.Errorf("call %q: want call FUNC or call FUNC(ARG, ...)", text)
		}
		if inner = strings.TrimSpace(inner); inner != "" {
			for _, a := range strings.Split(inner, ",") {
				a = strings.TrimSpace(a)
				if _, err := strconv.Atoi(a); err != nil && !(isIdent(a) && known(a)) {
					return 0, nil, fmt.Errorf("call %s: argument %s is neither a whole number nor a name the caller has (a parameter, or a name assigned before the call: i = cuda.threadIdx.x)", pyName(name), pyName(a))
				}
				args = append(args, a)
			}
		}
	}
	fn, ok := functions[name]
	if !ok {
		return 0, nil, fmt.Errorf("call %s: no such device function", pyName(name))
	}
	if want := sc.Functions[fn].Params; len(args) != len(want) {
		return 0, nil, fmt.Errorf("call %s: it takes %d arguments (%s), given %d", pyName(name), len(want), strings.Join(want, ", "), len(args))
	}
	return fn, args, nil
}

// isDotted reports whether s is a dotted Python name (numpy, numba.cuda).
func isDotted(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if !isIdent(p) {
			return false
		}
	}
	return true
}
