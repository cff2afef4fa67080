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
	"swapcheck/scenario"
	"swapcheck/sched"
)

//go:embed replay.py
var template string

// Unsupported says in one line what a script (or, Test, a regression
// test) cannot force.
type Unsupported struct {
	What string
	Test bool
}

func (u *Unsupported) Error() string {
	if u.Test {
		return "the regression test cannot force " + u.What
	}
	return "the Python replay cannot force " + u.What
}

func unsupported(format string, args ...any) error {
	return &Unsupported{What: fmt.Sprintf(format, args...)}
}

// Emit writes the replay script of a report's schedule: a violation's
// counterexample, or the walk of a verdict without one when it has one
// (sched.Result.Walk: a random or pct search of one run, a replayed
// schedule), which the script replays expecting no violation.
func Emit(w io.Writer, r *check.Report) error {
	schedule, expect := r.Result.Walk, (*sched.Failure)(nil)
	if r.Result.Verdict == sched.Violation {
		schedule, expect = r.Result.Schedule, r.Result.Failure
	}
	if len(schedule) == 0 {
		return fmt.Errorf("the verdict is %s with no schedule to replay", r.Result.Verdict)
	}
	return emit(w, r.Program, schedule, expect, r.Config.Scope == check.ScopeAll)
}

// EmitSchedule writes the replay script of any schedule of p; expect is
// the violation the model found at its end (nil for none).
func EmitSchedule(w io.Writer, p *model.Program, schedule []sched.ThreadID, expect *sched.Failure) error {
	return emit(w, p, schedule, expect, false)
}

func emit(w io.Writer, p *model.Program, schedule []sched.ThreadID, expect *sched.Failure, afterFailure bool) error {
	d, err := build(p, schedule, expect)
	if err != nil {
		return err
	}
	d.AfterFailure = afterFailure
	blob, err := json.Marshal(d)
	if err != nil {
		return err
	}
	out := strings.NewReplacer(
		"@@DATA@@", strconv.Quote(string(blob)),
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
// the line). Tags: "proto" (the swap), "mod:NAME" (a scenario module or
// the host's program), "sim" (the simulator's kernel.py, by Key).
type anchor struct {
	Tag  string   `json:"tag"`
	Line int      `json:"line"`
	Ops  []string `json:"ops"`
	K    int      `json:"k"`
	// Key names a line of kernel.py (tag "sim"), which the script finds
	// in the simulator it runs (sim.go).
	Key string `json:"key,omitempty"`
	// Use is the module global a use statement loads (the script records
	// what it held, to tell another launch's fake from the caller's).
	Use string `json:"use,omitempty"`
	// Scan marks one pass of the scan of fn_globs.items(): on real module
	// files, whose globals the model does not all have, only the passes
	// over the model's globals (and the exhausting one) are steps.
	Scan bool `json:"scan,omitempty"`
	// API names a step in the simulator's kernelapi.py (tag "api"), which
	// the script finds in the kernelapi.py it runs (memory.go).
	API *apiStep `json:"api,omitempty"`
	// Elem marks a store to or a load from an array, whose turn the judge
	// records (memory.go).
	Elem *elemStep `json:"elem,omitempty"`
	// Src is an instruction of a -source file (tag "src", source.go).
	Src *srcAt `json:"src,omitempty"`
	// End names the kernel whose return ends a GPU thread (-source).
	End string `json:"end,omitempty"`
}

type turn struct {
	Thread int    `json:"thread"`
	At     anchor `json:"at"`
	Where  string `json:"where"` // the model's file:line and text, for messages
	// Noop marks a turn in which nothing shared happens and no thread
	// needs to be anywhere: the host's local steps after a landing (its
	// turn before ran them already, up to its next anchor), the
	// interrupt's last step once the host has finished, the raise
	// fault's arming, and proposed's steps on nothing shared. The
	// scheduler passes them.
	Noop bool `json:"noop,omitempty"`
	// Raise: the raise fault falls here: the statement's fault hook
	// raises instead of letting it run (model/raisefault.go).
	Raise bool `json:"raise,omitempty"`
	// Land is an interrupt's turn: the instruction of the host whose
	// eval-breaker check raises it (interrupt.go).
	Land *landing `json:"land,omitempty"`
	// N: a -source turn begins at the thread's N-th pass (from 0) at At,
	// or when Alt is set, at Alt's place and pass instead.
	N   int     `json:"n,omitempty"`
	Alt *parkAt `json:"alt,omitempty"`
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
	// Src and N: tag "src" (-source), the file's instruction at the
	// host's N-th pass there, which the script sets the SIGINT at
	Src *srcAt `json:"src,omitempty"`
	N   int    `json:"n,omitempty"`
}

type module struct {
	Name    string   `json:"name"`
	Names   []string `json:"names"`   // bound to the real cuda module
	Globals []string `json:"globals"` // the model's globals, in dict order
}

type data struct {
	Variant    string `json:"variant"`
	SourceFile string `json:"source_file"`
	Atomicity  string `json:"atomicity"`
	Dispatches bool   `json:"dispatches"` // proposed: kernel.py patched, a dispatcher for cuda
	// ThreadContext: kernel.py patched so that the kernel context is the
	// thread's own (proposed, merged-fix: model.Protocol.ThreadContext)
	ThreadContext bool `json:"thread_context"`
	// ZeroCountMissing: a count of 0 is no leftover
	// (model.Protocol.ZeroCountIsMissing)
	ZeroCountMissing bool     `json:"zero_count_missing"`
	Modules          []module `json:"modules"`
	Attrs            []string `json:"attrs"`
	Threads          int      `json:"threads"`
	Blocks           int      `json:"blocks"`
	Launches         int      `json:"launches"` // per host
	Hosts            int      `json:"hosts"`
	ThreadNames      []string `json:"thread_names"`
	Signal           int      `json:"signal"` // the interrupt's pseudo-thread, or -1
	Raiser           int      `json:"raiser"` // the raise fault's pseudo-thread, or -1
	Turns            []turn   `json:"turns"`
	Anchors          []anchor `json:"anchors"`
	// SimKeys are the simulator's steps that anchor (every turn's, and
	// those the scenario's code runs through, so that a thread reaching
	// one the model's does not is a replay failure)
	SimKeys []string `json:"sim_keys"`
	// Files are the scenario's modules and the host's program (HostModule),
	// LaunchLines the host program's line of each launch
	Files       []pyFile `json:"files"`
	HostModule  string   `json:"host_module"`
	LaunchLines []int    `json:"launch_lines"`
	// Standin is the stand-in numba (--target rendition), the variant's
	// rendition in it
	Standin       []pyFile `json:"standin"`
	KnownSwaps    []pyFile `json:"known_swaps"` // every variant's rendition, to name the installed one
	ExpectKind    string   `json:"expect_kind"`
	ExpectMessage string   `json:"expect_message"`
	// AfterFailure: violations that only threads of a failed launch saw
	// count (explore -after-failure); else they are shown, and not counted
	AfterFailure bool   `json:"after_failure"`
	ScenarioText string `json:"-"`
	// Memory is the scenario's arrays and atomics, for the judge of the
	// simulator's other races (memory.go); nil without them
	Memory *memoryData `json:"memory"`
	// Source is a -source run's file and code (source.go); nil for a
	// listing's schedule
	Source *srcData `json:"source,omitempty"`
}

// describeModules sets the scenario's modules (their names bound to the
// real module, and the model's globals of each, in dict order) and the
// attributes its uses read, which the script checks its files against.
func (d *data) describeModules(sc *scenario.Scenario) {
	for m, mod := range sc.Modules {
		// lists, never null: a module may bind no name to cuda
		globals := append([]string{}, mod.Names...)
		if m == 0 {
			globals = append(globals, "kernel")
		}
		for _, f := range sc.Functions {
			if f.Module == m {
				globals = append(globals, f.Name)
			}
		}
		d.Modules = append(d.Modules, module{Name: mod.Name, Names: append([]string{}, mod.Names...), Globals: globals})
	}
	for _, body := range append([][]scenario.Stmt{sc.Kernel}, funcBodies(sc)...) {
		for _, s := range allStmts(body) {
			if s.Kind == scenario.OpUse && !slices.Contains(d.Attrs, s.Attr) {
				d.Attrs = append(d.Attrs, s.Attr)
			}
		}
	}
}

// replayable are the violation kinds the script can judge.
var replayable = map[string]bool{
	check.KindUseSawReal: true, check.KindUseSawNone: true, check.KindUseSawOtherFake: true,
	check.KindException: true, check.KindLeftSwapped: true, check.KindRegistryLeft: true,
	check.KindLostUpdate: true, check.KindSharedNotShared: true, check.KindStaleRead: true,
}

// threadInfo is where a model thread comes from: a host, or a GPU thread
// of a launch (global numbering, 1-based), block and index in the block.
type threadInfo struct {
	host               bool
	launch, block, tid int
}

// threadInfos numbers the threads as model.Program does: the hosts, then
// each host's launches' threads, block by block, in index order.
func threadInfos(p *model.Program) []threadInfo {
	return threadInfosOf(p.Scenario, p.NumHosts())
}

func threadInfosOf(sc *scenario.Scenario, hosts int) []threadInfo {
	out := make([]threadInfo, hosts)
	for i := range out {
		out[i].host = true
	}
	for l := 1; l <= hosts*sc.Launches; l++ {
		for b := range sc.Blocks {
			for tid := range sc.Threads {
				out = append(out, threadInfo{launch: l, block: b, tid: tid})
			}
		}
	}
	return out
}

func build(p *model.Program, schedule []sched.ThreadID, expect *sched.Failure) (*data, error) {
	sc := p.Scenario
	// gil-breaker's steps are gil's and its schedules a subset of gil's
	if p.Atomicity != model.GIL && p.Atomicity != model.GILBreaker {
		return nil, unsupported("atomicity %s (only gil and gil-breaker: a GIL build cannot run a free-threaded interleaving)", p.Atomicity)
	}
	if expect != nil && !replayable[expect.Kind] {
		return nil, unsupported("the violation kind %s", expect.Kind)
	}
	if sc.Fixes != 0 {
		return nil, unsupported("the simulator fixes %s (no simulator the script runs has them; docs/simulator-fixes.md has the patches)", sc.Fixes)
	}
	fs := newFiles(sc)
	for _, m := range sc.Modules {
		if m.Name == hostModule {
			return nil, unsupported("a scenario module named %s (the host's program has that name)", hostModule)
		}
	}
	d := &data{
		Variant: p.Protocol.Name, SourceFile: p.Protocol.Source, Atomicity: p.Atomicity.String(),
		Dispatches: p.Protocol.Dispatches, ThreadContext: p.Protocol.ThreadContext,
		ZeroCountMissing: p.Protocol.ZeroCountIsMissing,
		Threads:          sc.Threads, Blocks: sc.Blocks, Launches: sc.Launches, Hosts: p.NumHosts(),
		Signal: p.Signal(), Raiser: p.Raiser(),
		ScenarioText: sc.String(), Files: fs.files, HostModule: hostModule, LaunchLines: fs.launches, Attrs: []string{},
	}
	for _, pr := range check.Protocols() {
		src, err := swapcheck.PythonSource(pr.Source)
		if err != nil {
			return nil, fmt.Errorf("internal: no Python rendition for %s: %v", pr.Name, err)
		}
		d.KnownSwaps = append(d.KnownSwaps, pyFile{Name: pr.Name, Source: src})
		if pr.Name == p.Protocol.Name {
			d.Standin = standin(pr, src)
		}
	}
	if expect != nil {
		d.ExpectKind, d.ExpectMessage = expect.Kind, expect.Message
	}
	d.describeModules(sc)
	for t := range p.NumThreads() {
		d.ThreadNames = append(d.ThreadNames, p.ThreadName(t))
	}
	d.Anchors = append(d.Anchors, protocolAnchors(p.Protocol)...)
	d.Anchors = append(d.Anchors, fs.anchors...)
	d.SimKeys = simKeysOf(p)
	d.Memory = memoryOf(p, threadInfos(p))

	steps, err := check.Steps(p, schedule)
	if err != nil {
		return nil, fmt.Errorf("the schedule does not replay in the model: %v", err)
	}
	infos := threadInfos(p)
	// where each thread is in the code it runs: per thread, per code
	// (the kernel or a device function; no code calls itself), the run
	// of its body (flatten) and the next statement
	type cursor struct {
		run  []*scenario.Stmt
		next int
	}
	at := make([]map[string]*cursor, p.NumThreads())
	enter := func(t int, name string, body []scenario.Stmt) {
		if at[t] == nil {
			at[t] = map[string]*cursor{}
		}
		tid := -1
		if !infos[t].host {
			tid = infos[t].tid
		}
		at[t][name] = &cursor{run: flatten(body, tid, infos[t].block)}
	}
	bodyOf := map[string][]scenario.Stmt{"kernel": sc.Kernel}
	for _, f := range sc.Functions {
		bodyOf[f.Name] = f.Body
	}
	hostCalls := make([]int, p.NumHosts()) // each host's device calls so far
	var hostLast *model.Event              // the host's last step that ran an instruction of the swap
	// the host's steps of local steps since its last shared one, by the
	// instruction they stopped at: the script sets an interrupt at the
	// first such instruction after the host's last turn, which is the
	// model's landing only if the host stopped there once
	localStops := map[string]int{}
	raising := false // the raise fault is armed: the next step raises
	for i, s := range steps {
		ev := s.Event
		t := s.Thread
		tr := turn{Thread: t, Where: ev.Where + "  " + ev.Text}
		switch {
		case t == p.Raiser():
			// RAISE's move arms the fault (or ends RAISE): the next move's
			// thread raises at its statement instead of running it
			tr.Noop = true
			raising = strings.HasPrefix(ev.Text, "a raise fault is armed")
			d.Turns = append(d.Turns, tr)
			continue
		case t == p.Signal() || ev.Where == "host":
			tr.Noop = true
			if t == p.Signal() && ev.Raised != 0 {
				l, err := landingOf(p, ev, hostLast)
				if err != nil {
					return nil, err
				}
				if hostLast != nil && localStops[hostLast.Where+hostLast.Text] > 1 {
					return nil, unsupported("an interrupt that lands at %s after the host stopped at the same check before (a local loop)", hostLast.Where)
				}
				tr.Noop, tr.Where, tr.Land = false, tr.Where+" ("+l.Text+")", l
			}
			if ev.Where == "host" {
				hostLast = nil
			}
			d.Turns = append(d.Turns, tr)
			continue
		}
		if t == model.Host {
			hostLast = nil
			if strings.HasPrefix(ev.Where, p.Protocol.Source+":") {
				hostLast = &steps[i].Event
			}
			if local, first := localInstr(p.Protocol, ev); !local && !(first && len(ev.Effects) == 0) {
				clear(localStops)
			}
		}
		if ev.Fault == scenario.FaultRaise {
			if !raising {
				return nil, fmt.Errorf("internal: step %d raises a fault RAISE did not arm", i+1)
			}
			tr.Raise, raising = true, false
		}
		switch {
		case strings.HasPrefix(ev.Where, p.Protocol.Source+":"):
			a := protoAnchorFor(p.Protocol, ev)
			if t == model.Host {
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
					tr.Where += " (local steps)"
					tr.Noop = true
					d.Turns = append(d.Turns, tr)
					continue
				}
			}
			if a.Tag == "" {
				return nil, fmt.Errorf("internal: step %d (%s %s) matches no instruction of %s", i+1, ev.Where, ev.Bytecode, p.Protocol.Name)
			}
			tr.At = a
		case infos[t].host && strings.HasSuffix(ev.Text, "() from the host"):
			// the host program's own device call
			h := hostCalls[t]
			hostCalls[t]++
			f, ok := fs.hostCall(sc, h)
			if !ok {
				return nil, fmt.Errorf("internal: step %d: the host makes more device calls than its program", i+1)
			}
			enter(t, f.Name, f.Body)
			tr.At = fs.calls[h]
		case strings.HasPrefix(ev.Where, "kernelapi.py:"):
			api, err := apiStepOf(ev.Text)
			if err != nil {
				return nil, fmt.Errorf("internal: step %d: %v", i+1, err)
			}
			tr.At = anchor{Tag: "api", API: api}
		case strings.HasPrefix(ev.Where, "kernel.py"):
			key, noop, ok := simKey(&ev)
			if !ok {
				return nil, unsupported("the simulator step %q", ev.Text)
			}
			if noop {
				tr.Noop = true
				d.Turns = append(d.Turns, tr)
				continue
			}
			if key == simDeviceSwap {
				enter(t, "kernel", sc.Kernel) // the kernel run inline, as a device function
			}
			tr.At = anchor{Tag: "sim", Key: key}
		default:
			c := at[t][ev.Where]
			if c == nil && ev.Where == "kernel" && !infos[t].host {
				enter(t, "kernel", sc.Kernel)
				c = at[t]["kernel"]
			}
			if c == nil || c.next >= len(c.run) {
				return nil, fmt.Errorf("internal: step %d: %s runs %s (%s) outside a call, or past its end", i+1, p.ThreadName(t), ev.Where, ev.Text)
			}
			st := c.run[c.next]
			c.next++
			if st.Kind == scenario.OpCall && !tr.Raise {
				f := sc.Functions[st.Func]
				enter(t, f.Name, bodyOf[f.Name])
			}
			a, ok := fs.at[st]
			if !ok {
				return nil, fmt.Errorf("internal: step %d: %s's statement %q has no line", i+1, ev.Where, ev.Text)
			}
			tr.At = a
		}
		d.Turns = append(d.Turns, tr)
	}
	return d, nil
}

// simKeysOf are the simulator's steps that anchor in p's runs: those
// every launch makes, syncthreads' and the barrier's with syncthreads,
// those of several hosts (the device check, the assert, the kernel run
// inline). A step a thread runs through that is not one of them is no
// anchor (so kernel.py's device check is none with one host, where the
// model folds it into the step before).
func simKeysOf(p *model.Program) []string {
	sc := p.Scenario
	keys := []string{simStart, simPollDone, simPollAbort}
	if !p.Protocol.ThreadContext {
		keys = append(keys, simSetContext, simResetContext)
		if p.NumHosts() > 1 {
			keys = append(keys, simAssert, simDeviceCheck, simDeviceSwap)
		}
	}
	for _, body := range append([][]scenario.Stmt{sc.Kernel}, funcBodies(sc)...) {
		if slices.ContainsFunc(allStmts(body), func(s scenario.Stmt) bool { return s.Kind == scenario.OpSync }) {
			return append(keys, simPollRelease, simSyncCheck, simSyncBlock, simSyncWait, simSyncRecheck)
		}
	}
	return keys
}

func funcBodies(sc *scenario.Scenario) [][]scenario.Stmt {
	var out [][]scenario.Stmt
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
func landingOf(p *model.Program, ev model.Event, last *model.Event) (*landing, error) {
	const at = "lands in the host at "
	var where string
	for _, e := range ev.Effects {
		if strings.HasPrefix(e, "lands ") {
			where = e
			break
		}
	}
	switch {
	case strings.HasPrefix(where, "lands entering with swapped_cuda_module(...)"):
		// the launch's swap is entered: contextlib's helper checks at its
		// RESUME, called by the with's CALL, before anything ran
		return &landing{Tag: "sim", Key: simSwapWith, Op: "CALL", Callee: true,
			Text: "kernel.py with swapped_cuda_module(self.fn, fake_cuda_module) CALL, at the RESUME of contextlib's helper"}, nil
	case strings.HasPrefix(where, "lands in FakeCUDAKernel.__call__ after its device check read None"):
		return &landing{Tag: "sim", Key: simNormalize, Op: "CALL", Callee: true,
			Text: "kernel.py normalize_kernel_dimensions(...) CALL, at the callee's RESUME"}, nil
	case strings.HasPrefix(where, "lands in FakeCUDAKernel.__call__ after its device check read a fake"):
		return &landing{Tag: "sim", Key: simDeviceSwap, Op: "CALL", Callee: true,
			Text: "kernel.py _get_kernel_context() CALL, at the callee's RESUME"}, nil
	}
	if strings.HasPrefix(where, "lands in _push_kernel_context's __enter__") && p.Protocol.Dispatches {
		// kernel.py patched for proposed has no _push_kernel_context: the
		// launch's first check after the fake's making is the swap's
		// helper, and the launch never starts either way
		return &landing{Tag: "sim", Key: simSwapWith, Op: "CALL", Callee: true,
			Text: "kernel.py with swapped_cuda_module(self.fn, fake_cuda_module) CALL, the first check after the fake's making (kernel.py patched for proposed)"}, nil
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
