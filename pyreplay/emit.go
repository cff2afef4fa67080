package pyreplay

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"swapcheck"
	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

//go:embed replay.py
var template string

// Unsupported says which feature a script cannot replay yet.
type Unsupported struct{ What string }

func (u *Unsupported) Error() string {
	return "the Python replay does not support " + u.What + " yet"
}

func unsupported(format string, args ...any) error {
	return &Unsupported{What: fmt.Sprintf(format, args...)}
}

// Emit writes the replay script of a violation's counterexample.
func Emit(w io.Writer, r *check.Report) error {
	if r.Result.Verdict != sched.Violation || r.Result.Failure == nil {
		return fmt.Errorf("the verdict is %s, not a violation: there is no counterexample to replay", r.Result.Verdict)
	}
	return EmitSchedule(w, r.Program, r.Result.Schedule, r.Result.Failure)
}

// EmitSchedule writes the replay script of any schedule of p; expect is
// the violation the model found at its end (nil for none).
func EmitSchedule(w io.Writer, p *model.Program, schedule []sched.ThreadID, expect *sched.Failure) error {
	d, err := build(p, schedule, expect)
	if err != nil {
		return err
	}
	src, err := swapcheck.PythonSource(p.Protocol.Source)
	if err != nil {
		return fmt.Errorf("internal: no Python rendition for %s: %v", p.Protocol.Name, err)
	}
	if strings.Contains(src, "'''") {
		return fmt.Errorf("internal: %s holds ''' and cannot be embedded as a raw string", p.Protocol.Source)
	}
	blob, err := json.Marshal(d)
	if err != nil {
		return err
	}
	out := strings.NewReplacer(
		"@@DATA@@", strconv.Quote(string(blob)),
		"@@VARIANT_SOURCE@@", src,
		"@@SCENARIO_SOURCE@@", d.ScenarioSource,
		"@@VARIANT@@", p.Protocol.Name,
		"@@SCENARIO_TEXT@@", indent(d.ScenarioText),
	).Replace(template)
	_, err = io.WriteString(w, out)
	return err
}

// indent indents every line of text by four spaces.
func indent(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// anchor is where a step begins: the first opcode of its bytecodes, by
// code file (tag), line, opcode name (one of Ops) and which occurrence of
// that opcode on the line it is (K, counted from 0 since the frame came to
// the line).
type anchor struct {
	Tag  string   `json:"tag"`
	Line int      `json:"line"`
	Ops  []string `json:"ops"`
	K    int      `json:"k"`
	// Key names a step of numba's kernel.py (tag "sim"), whose line the
	// script finds in the installed simulator.
	Key string `json:"key,omitempty"`
	// Use is the module global a use statement loads (the script records
	// what it held, to tell another launch's fake from the caller's).
	Use string `json:"use,omitempty"`
	// Scan marks one pass of the scan of fn_globs.items(): on real module
	// files, whose globals the model does not all have, only the passes
	// over the model's globals (and the exhausting one) are steps.
	Scan bool `json:"scan,omitempty"`
}

type turn struct {
	Thread int    `json:"thread"`
	At     anchor `json:"at"`    // on the rendition
	NB     anchor `json:"nb"`    // on real numba (--target numba)
	Where  string `json:"where"` // the model's file:line and text, for messages
	// Noop marks a turn in which nothing shared happens and no thread
	// needs to be anywhere: the host's local steps after a landing (its
	// turn before ran them already, up to its next anchor) and the
	// interrupt's last step once the host has finished. The scheduler
	// passes them.
	Noop bool `json:"noop,omitempty"`
	// Land is an interrupt's turn: the instruction of the host whose
	// eval-breaker check raises it (interrupt.go).
	Land   *landing `json:"land,omitempty"`
	NBLand *landing `json:"nb_land,omitempty"` // on real numba, where it differs
}

// landing is the instruction whose own eval-breaker check an interrupt
// lands at: opcode Op, the K-th on Line (counted as anchors count) in the
// swap's generator (Comp false) or in its comprehension's frame (Comp
// true). The script sets the pending SIGINT at this instruction's opcode
// event, as the trace function's last act, so that the instruction's
// check is the first the main thread makes afterwards.
type landing struct {
	Tag  string `json:"tag"`
	Line int    `json:"line"`
	Op   string `json:"op"`
	K    int    `json:"k"`
	Comp bool   `json:"comp,omitempty"`
	// Callee: the check is the RESUME of the Python function the CALL
	// calls (contextlib's helper), which checks before any trace event.
	Callee bool `json:"callee,omitempty"`
	// Yield: the check is contextlib's __enter__'s, once next() returned
	// from the generator's yield (Op YIELD_VALUE at Line): the pending
	// SIGINT is set at the generator frame's "return" event there.
	Yield bool   `json:"yield,omitempty"`
	Key   string `json:"key,omitempty"` // tag "sim": a line of kernel.py, by key
	Text  string `json:"text"`          // for messages
}

type module struct {
	Name    string   `json:"name"`
	Names   []string `json:"names"`   // bound to the real cuda module
	Globals []string `json:"globals"` // every global, in dict order
}

type function struct {
	Name   string `json:"name"`
	Module int    `json:"module"`
}

type data struct {
	Variant        string     `json:"variant"`
	SourceFile     string     `json:"source_file"`
	Atomicity      string     `json:"atomicity"`
	Modules        []module   `json:"modules"`
	Functions      []function `json:"functions"`
	Attrs          []string   `json:"attrs"`
	Threads        int        `json:"threads"`
	Blocks         int        `json:"blocks"`
	Launches       int        `json:"launches"`
	ThreadNames    []string   `json:"thread_names"`
	Signal         int        `json:"signal"` // the interrupt's pseudo-thread, or -1
	Turns          []turn     `json:"turns"`
	Anchors        []anchor   `json:"anchors"`
	NBModules      []pyFile   `json:"nb_modules"`
	NBAnchors      []anchor   `json:"nb_anchors"`
	KnownSwaps     []pyFile   `json:"known_swaps"` // every variant's rendition, to name the installed one
	ExpectKind     string     `json:"expect_kind"`
	ExpectMessage  string     `json:"expect_message"`
	ScenarioText   string     `json:"-"`
	ScenarioSource string     `json:"-"`
}

// replayable are the violation kinds the script can judge.
var replayable = map[string]bool{
	check.KindUseSawReal: true, check.KindUseSawNone: true, check.KindUseSawOtherFake: true,
	check.KindException: true, check.KindLeftSwapped: true, check.KindRegistryLeft: true,
}

func build(p *model.Program, schedule []sched.ThreadID, expect *sched.Failure) (*data, error) {
	sc := p.Scenario
	// gil-breaker's steps are gil's and its schedules a subset of gil's
	if p.Atomicity != model.GIL && p.Atomicity != model.GILBreaker {
		return nil, unsupported("atomicity %s (only gil and gil-breaker)", p.Atomicity)
	}
	if expect != nil && !replayable[expect.Kind] {
		return nil, unsupported("the violation kind %s", expect.Kind)
	}
	if sc.Host != nil {
		return nil, unsupported("device functions called from the host")
	}
	if sc.NumHosts() > 1 {
		return nil, unsupported("several host threads")
	}
	if slices.ContainsFunc(append([][]model.Stmt{sc.Kernel}, funcBodies(sc)...), func(body []model.Stmt) bool {
		return slices.ContainsFunc(body, func(s model.Stmt) bool { return s.Kind == model.OpIf || s.Kind == model.OpRepeat })
	}) {
		// the harness anchors each statement on a line of its own, run
		// by every thread alike
		return nil, unsupported("branches on the thread index and repeats")
	}
	if other := sc.Faults &^ model.Faults(0).With(model.FaultInterrupt); other != 0 {
		// other helpers add fault kinds; each needs its own forcing
		return nil, unsupported("faults (%s): only interrupt", other)
	}
	for _, f := range sc.Functions {
		for _, s := range f.Body {
			if s.Kind == model.OpCall {
				return nil, unsupported("nested device calls (%s calls a device function)", f.Name)
			}
		}
	}
	for _, body := range append([][]model.Stmt{sc.Kernel}, funcBodies(sc)...) {
		for _, s := range body {
			switch s.Kind {
			case model.OpSync:
				return nil, unsupported("syncthreads()")
			case model.OpRaise:
				return nil, unsupported("kernel code that raises (aborted launches)")
			}
		}
	}
	g := newGen(sc)
	nb := newNumbaGen(sc)
	d := &data{
		Variant: p.Protocol.Name, SourceFile: p.Protocol.Source, Atomicity: p.Atomicity.String(),
		Threads: sc.Threads, Blocks: sc.Blocks, Launches: sc.Launches, Signal: p.Signal(),
		ScenarioText: sc.String(), ScenarioSource: g.src.String(), Attrs: g.attrs,
		NBModules: nb.files,
	}
	for _, pr := range check.Protocols() {
		src, err := swapcheck.PythonSource(pr.Source)
		if err != nil {
			return nil, fmt.Errorf("internal: no Python rendition for %s: %v", pr.Name, err)
		}
		d.KnownSwaps = append(d.KnownSwaps, pyFile{Name: pr.Name, Source: src})
	}
	if expect != nil {
		d.ExpectKind, d.ExpectMessage = expect.Kind, expect.Message
	}
	for m, mod := range sc.Modules {
		globals := append([]string(nil), mod.Names...)
		if m == 0 {
			globals = append(globals, "kernel")
		}
		for _, f := range sc.Functions {
			if f.Module == m {
				globals = append(globals, f.Name)
			}
		}
		d.Modules = append(d.Modules, module{Name: mod.Name, Names: mod.Names, Globals: globals})
	}
	for _, f := range sc.Functions {
		d.Functions = append(d.Functions, function{Name: f.Name, Module: f.Module})
	}
	for t := range p.NumThreads() {
		d.ThreadNames = append(d.ThreadNames, p.ThreadName(t))
	}
	protoAnchors := protocolAnchors(p.Protocol)
	d.Anchors = append(d.Anchors, protoAnchors...)
	d.Anchors = append(d.Anchors, g.anchors...)
	d.NBAnchors = append(d.NBAnchors, protoAnchors...)
	d.NBAnchors = append(d.NBAnchors, nb.anchors...)
	for _, key := range simKeys {
		d.NBAnchors = append(d.NBAnchors, anchor{Tag: "sim", Key: key})
	}

	steps, err := check.Steps(p, schedule)
	if err != nil {
		return nil, fmt.Errorf("the schedule does not replay in the model: %v", err)
	}
	kernelAt := make([]int, p.NumThreads())
	fnAt := make([]map[string]int, p.NumThreads())
	var hostLast *model.Event // the host's last step that ran an instruction of the swap
	// the host's steps of local steps since its last shared one, by the
	// instruction they stopped at: the script sets an interrupt at the
	// first such instruction after the host's last turn, which is the
	// model's landing only if the host stopped there once
	localStops := map[string]int{}
	for i, s := range steps {
		ev := s.Event
		var a, nbA anchor
		if s.Thread == p.Signal() || ev.Where == "host" {
			tr := turn{Thread: s.Thread, Where: ev.Where + "  " + ev.Text, Noop: true}
			if s.Thread == p.Signal() && ev.Raised != 0 {
				l, err := landingOf(p, ev, hostLast, g)
				if err != nil {
					return nil, err
				}
				if hostLast != nil && localStops[hostLast.Where+hostLast.Text] > 1 {
					return nil, unsupported("an interrupt that lands at %s after the host stopped at the same check before (a local loop)", hostLast.Where)
				}
				tr.Noop, tr.Where = false, tr.Where+" ("+l.Text+")"
				switch {
				case l.Key == simContextYield:
					// The harness sets _kernel_context by a statement, with
					// no generator: its first check after it, the swap's
					// helper, stands for the rest of the launch, which
					// never starts either; numba's is the model's.
					nb := *l
					tr.NBLand = &nb
					l = &landing{Tag: "scen", Line: g.swapAt, Op: "CALL", Callee: true,
						Text: "with swapped_cuda_module(...) CALL, the harness's first check after _kernel_context = fake"}
				case l.Tag == "scen":
					// the harness's with stands for FakeCUDAKernel.__call__'s
					nb := *l
					nb.Tag, nb.Line, nb.Key = "sim", 0, simSwapWith
					tr.NBLand = &nb
				}
				tr.Land = l
			}
			if ev.Where == "host" {
				hostLast = nil
			}
			d.Turns = append(d.Turns, tr)
			continue
		}
		if s.Thread == model.Host {
			hostLast = nil
			if strings.HasPrefix(ev.Where, p.Protocol.Source+":") {
				hostLast = &steps[i].Event
			}
			if local, first := localInstr(p.Protocol, ev); !local && !(first && len(ev.Effects) == 0) {
				clear(localStops)
			}
		}
		switch {
		case strings.HasPrefix(ev.Where, p.Protocol.Source+":"):
			a = protoAnchorFor(p.Protocol, ev)
			if s.Thread == model.Host {
				// A paused host's local steps up to another landing are
				// named by the instruction there: a local one that
				// checked, or a scan whose first pass checks before it
				// (no pass ran: a pass always says what it read).
				local, first := localInstr(p.Protocol, ev)
				if local || first && len(ev.Effects) == 0 {
					hostLast = nil
					if local {
						hostLast = &steps[i].Event
						localStops[ev.Where+ev.Text]++
					}
					d.Turns = append(d.Turns, turn{Thread: s.Thread, Where: ev.Where + "  " + ev.Text + " (local steps)", Noop: true})
					continue
				}
			}
			if a.Tag == "" {
				return nil, fmt.Errorf("internal: step %d (%s %s) matches no instruction of %s", i+1, ev.Where, ev.Bytecode, p.Protocol.Name)
			}
			nbA = a
		case ev.Where == "kernel.py":
			line, ok := g.hostLine(ev.Text)
			sim, simOK := simAnchor(ev.Text)
			if !ok || !simOK {
				return nil, unsupported("the simulator step %q", ev.Text)
			}
			a, nbA = line, sim
		case ev.Where == "kernel":
			k := kernelAt[s.Thread]
			kernelAt[s.Thread]++
			if k >= len(sc.Kernel) {
				return nil, fmt.Errorf("internal: step %d: the kernel has no statement %d", i+1, k)
			}
			if st := sc.Kernel[k]; st.Kind == model.OpCall {
				if fnAt[s.Thread] == nil {
					fnAt[s.Thread] = map[string]int{}
				}
				fnAt[s.Thread][sc.Functions[st.Func].Name] = 0
			}
			a, nbA = g.stmtAnchor("kernel", k), nb.stmtAnchor("kernel", k)
		default:
			k, ok := fnAt[s.Thread][ev.Where]
			if !ok {
				return nil, fmt.Errorf("internal: step %d: %s runs %s outside a call", i+1, p.ThreadName(s.Thread), ev.Where)
			}
			fnAt[s.Thread][ev.Where]++
			a, nbA = g.stmtAnchor(ev.Where, k), nb.stmtAnchor(ev.Where, k)
			if a.Tag == "" || nbA.Tag == "" {
				return nil, fmt.Errorf("internal: step %d: %s has no statement %d", i+1, ev.Where, k)
			}
		}
		d.Turns = append(d.Turns, turn{Thread: s.Thread, At: a, NB: nbA, Where: ev.Where + "  " + ev.Text})
	}
	return d, nil
}

func funcBodies(sc *model.Scenario) [][]model.Stmt {
	var out [][]model.Stmt
	for _, f := range sc.Functions {
		out = append(out, f.Body)
	}
	return out
}

// firstOps are the opcodes a step can begin with: the first opcode of each
// alternative ("CALL (...) / WITH_EXCEPT_START; RERAISE": CALL or
// WITH_EXCEPT_START).
func firstOps(bytecode string) []string {
	var ops []string
	for _, alt := range strings.Split(bytecode, " / ") {
		f := strings.Fields(alt)
		if len(f) > 0 {
			ops = append(ops, strings.TrimRight(f[0], ";"))
		}
	}
	return ops
}

// protocolAnchors are the anchors of every shared instruction of a listing;
// K counts the earlier shared instructions on the same line that begin
// with the same opcode but are another step (line 43's pop, then its
// update).
func protocolAnchors(pr *model.Protocol) []anchor {
	var out []anchor
	for i := range pr.Code {
		if a := protoAnchorAt(pr, i); a.Tag != "" {
			out = append(out, a)
		}
	}
	return out
}

func protoAnchorAt(pr *model.Protocol, i int) anchor {
	in := pr.Code[i]
	if in.Object == model.NoObject {
		return anchor{}
	}
	ops := firstOps(in.Bytecode)
	k := 0
	for j := range i {
		o := pr.Code[j]
		if o.Object != model.NoObject && o.Line == in.Line && o.Bytecode != in.Bytecode && firstOps(o.Bytecode)[0] == ops[0] {
			k++
		}
	}
	scan := in.Object == model.Globals && in.Access == sched.Read && ops[0] == "FOR_ITER"
	return anchor{Tag: "proto", Line: in.Line, Ops: ops, K: k, Scan: scan}
}

// protoAnchorFor finds the instruction a protocol step ran: the first
// shared one with its line, text and bytecode (instructions that share all
// three, such as the acquire of a with on both paths, share an anchor).
func protoAnchorFor(pr *model.Protocol, ev model.Event) anchor {
	for i, in := range pr.Code {
		if in.Object != model.NoObject && in.Line == ev.Line && in.Text == ev.Text && in.Bytecode == ev.Bytecode {
			return protoAnchorAt(pr, i)
		}
	}
	return anchor{}
}

// landingOf finds the instruction an interrupt's step (ev, thread SIGINT)
// lands at, from the landing its trace names; last is the host's step
// before it when that step ran an instruction of the swap. Landings
// other than a protocol instruction's own check are refused.
func landingOf(p *model.Program, ev model.Event, last *model.Event, g *gen) (*landing, error) {
	const at = "lands in the host at "
	var where string
	for _, e := range ev.Effects {
		if strings.HasPrefix(e, "lands ") {
			where = e
			break
		}
	}
	if strings.HasPrefix(where, "lands entering with swapped_cuda_module(...)") {
		// the launch's swap is entered: contextlib's helper checks at its
		// RESUME, called by the with's CALL, before anything ran
		return &landing{Tag: "scen", Line: g.swapAt, Op: "CALL", Callee: true,
			Text: "with swapped_cuda_module(...) CALL, at the RESUME of contextlib's helper"}, nil
	}
	if strings.HasPrefix(where, "lands in _push_kernel_context's __enter__") {
		return &landing{Tag: "sim", Key: simContextYield, Op: "YIELD_VALUE", Yield: true,
			Text: "kernel.py _push_kernel_context's yield, raised in contextlib's __enter__ once next() returned"}, nil
	}
	if strings.HasPrefix(where, "lands in contextlib's __enter__ (next() returned)") {
		for _, in := range p.Protocol.Code {
			if in.Yield {
				return &landing{Tag: "proto", Line: in.Line, Op: "YIELD_VALUE", Yield: true,
					Text: fmt.Sprintf("%s:%d yield, raised in contextlib's __enter__ once next() returned", p.Protocol.Source, in.Line)}, nil
			}
		}
	}
	rest, ok := strings.CutPrefix(where, at)
	if !ok {
		if where == "" {
			where = "where its trace does not say"
		}
		return nil, unsupported("an interrupt that %s", strings.SplitN(where, ":", 2)[0])
	}
	loc, text, _ := strings.Cut(rest, "  ")
	_, lineText, _ := strings.Cut(loc, ":")
	line, err := strconv.Atoi(lineText)
	if err != nil {
		return nil, fmt.Errorf("internal: an interrupt lands at %q", rest)
	}
	code := p.Protocol.Code
	// The instruction that ran and checked after its effect (the host's
	// last step), or else the one whose first pass checks before it
	// (CheckFirst: the items() call before a comprehension).
	pick := -1
	for i, in := range code {
		if in.Line != line || in.Text != text {
			continue
		}
		if in.Check != model.CheckNone && last != nil && last.Line == in.Line && last.Text == in.Text && last.Bytecode == in.Bytecode {
			pick = i
			break
		}
	}
	first := pick < 0
	if first {
		for i, in := range code {
			if in.Line == line && in.Text == text && in.CheckFirst {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		// a local instruction that checked, in the window of the host's
		// last step (which the event names by its shared instruction)
		for i, in := range code {
			if in.Line == line && in.Text == text && in.Check != model.CheckNone && in.Object == model.NoObject {
				pick, first = i, false
				break
			}
		}
	}
	if pick < 0 {
		return nil, fmt.Errorf("internal: an interrupt lands at %s:%d, where no instruction checks", p.Protocol.Source, line)
	}
	in := code[pick]
	l := &landing{Tag: "proto", Line: line, Text: fmt.Sprintf("%s:%d", p.Protocol.Source, line)}
	switch {
	case first:
		// the comprehension's fn_globs.items(): the line's first CALL
		l.Op, l.Text = "CALL", l.Text+" CALL (items(), before the comprehension's first pass)"
	case in.Check == model.CheckLoop:
		// The pass goes back to FOR_ITER by the jump that checks: a pass
		// that kept its item (v is cuda) by JUMP_BACKWARD, one that skipped
		// it by the condition's POP_JUMP_BACKWARD_IF_FALSE
		// (testdata/cpython/replay_interrupt.py, comp_skip). On real module
		// files the passes over globals the model does not have come after
		// the model's pass, so the first backward jump is still its own.
		l.Op, l.Comp = "POP_JUMP_BACKWARD_IF_FALSE", true
		if passKept(last) {
			l.Op = "JUMP_BACKWARD"
		}
		l.Text += " " + l.Op + " (the comprehension's next pass)"
	case strings.Contains(in.Bytecode, "JUMP_BACKWARD"):
		l.Op, l.Text = "JUMP_BACKWARD", l.Text+" JUMP_BACKWARD"
	case strings.Contains(in.Bytecode, "CALL"):
		// the K-th checking CALL of the line (line 43: pop, then update)
		l.Op = "CALL"
		for j := range pick {
			o := code[j]
			if o.Line == line && o.Check != model.CheckNone && strings.Contains(o.Bytecode, "CALL") && o.Bytecode != in.Bytecode {
				l.K++
			}
		}
		l.Text += " CALL " + strings.TrimPrefix(strings.SplitN(in.Bytecode, " / ", 2)[0], "CALL ")
	case strings.Contains(in.Bytecode, "YIELD_VALUE"):
		// naive's generator expressions: a pass's check is the
		// generator's RESUME when dict() resumes it after a yield, its
		// backward jump past an item it skips, or, once exhausted, the
		// CALL of dict() that returns
		l.Op, l.Comp = "PASS", true
		l.Text += " (the generator expression's first check after the pass)"
	default:
		return nil, unsupported("an interrupt that lands at %s:%d after %s", p.Protocol.Source, line, in.Bytecode)
	}
	return l, nil
}

// localInstr reports whether ev is a local instruction of pr (no shared
// object), and whether it is one whose first pass checks before it
// (CheckFirst): a paused host's step of local steps that stopped at
// another landing is named by such an instruction.
func localInstr(pr *model.Protocol, ev model.Event) (local, checkFirst bool) {
	for _, in := range pr.Code {
		if in.Line == ev.Line && in.Text == ev.Text && in.Bytecode == ev.Bytecode {
			return in.Object == model.NoObject, in.CheckFirst
		}
	}
	return false, false
}

// passKept reports whether ev, a pass of a comprehension over
// fn_globs.items(), read a global bound to the real module (and kept it).
func passKept(ev *model.Event) bool {
	return ev != nil && slices.ContainsFunc(ev.Effects, func(e string) bool { return strings.HasSuffix(e, " is numba.cuda") })
}
