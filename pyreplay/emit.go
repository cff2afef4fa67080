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
	if sc.Faults != 0 {
		// forcing a KeyboardInterrupt at one eval-breaker check of the
		// main thread needs the fixture's trick (testdata/cpython/
		// switchpoints.py), not wired into replay.py
		return nil, unsupported("faults (%s)", sc.Faults)
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
		Threads: sc.Threads, Blocks: sc.Blocks, Launches: sc.Launches,
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
	for i, s := range steps {
		ev := s.Event
		var a, nbA anchor
		switch {
		case strings.HasPrefix(ev.Where, p.Protocol.Source+":"):
			a = protoAnchorFor(p.Protocol, ev)
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
