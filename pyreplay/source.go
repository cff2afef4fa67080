package pyreplay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"swapcheck"
	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	pysrc "swapcheck/source"
)

// A schedule of a -source run names the user's own instructions, so its
// script anchors a turn exactly: at the instruction (code object, byte
// offset) the step begins with, or at the simulator's or the scenario's
// line, and at which of the thread's passes there (N, counted from 0 over
// the thread's whole run). A thread stops only where its next turn
// begins, never at another step's anchor: which instructions end a step
// depends on what they touch, not on the instruction alone.

// srcData is what the script installs and checks: the file's text (its
// function, with the module-level statements it reads, is compiled by
// the script's own CPython, at the file's lines), and each code object's
// instructions as the model ran them, which the compiled ones must match.
type srcData struct {
	File   string    `json:"file"` // the name shown (the file's base name)
	Text   string    `json:"text"`
	Name   string    `json:"name"`
	Python string    `json:"python"` // the feature version the model's bytecode is ("3.11")
	Codes  []srcCode `json:"codes"`
	// Park is, per thread, where it stops once its turns are over (its
	// next step's beginning in the model), or nil: it has none left
	Park []*parkAt `json:"park"`
	// Paths are, per thread, the file's instructions it runs up to there
	// (code index, offset, ...; without the untraced ones): a replay that
	// leaves the model's path (another branch taken) fails, even where it
	// would come to its next anchor all the same
	Paths [][]int `json:"paths"`
}

type srcCode struct {
	QualName  string   `json:"qualname"`
	FirstLine int      `json:"firstline"`
	Offsets   []int    `json:"offsets"`
	Ops       []string `json:"ops"`
	Lines     []int    `json:"lines"` // for messages (0: none)
}

// srcAt is an instruction of the file: its code object (an index into
// srcData.Codes) and byte offset.
type srcAt struct {
	Code int    `json:"code"`
	Off  int    `json:"off"`
	Op   string `json:"op"`
}

type parkAt struct {
	At anchor `json:"at"`
	N  int    `json:"n"`
}

// untraced are instructions a step does not begin with: CPython gives
// them no trace event (the frame's prologue up to and with its first
// RESUME: a generator's cells and creation run before its call event) or
// may give none (RESUME, NOP), or the script passes them (no line: an
// exception handler's entry); a step's anchor is its first other unit.
func untraced(c *pyvm.Code, i int) bool {
	switch c.Instrs[i].OpName {
	case "RESUME", "NOP", "CACHE", "EXTENDED_ARG":
		return true
	}
	if c.Instrs[i].Line <= 0 {
		// no line (an exception handler's entry): the script passes it
		return true
	}
	for j := range i {
		if c.Instrs[j].OpName == "RESUME" {
			return false
		}
	}
	return true
}

// EmitSource writes the replay script of schedule, a run of a -source
// program, expecting the violation expect (a deadlock included). What the
// script cannot force is refused (Unsupported): the free-threaded modes,
// the simulator fixes, kernel.py patched, a kind the script cannot judge
// (a hang among them: no one execution shows it), an interrupt
// landing after an instruction CPython gives no trace event.
func EmitSource(w io.Writer, p *pysrc.Program, schedule []sched.ThreadID, expect *sched.Failure) error {
	d, err := buildSource(p, schedule, expect)
	if err != nil {
		return err
	}
	blob, err := json.Marshal(d)
	if err != nil {
		return err
	}
	out := strings.NewReplacer(
		"@@DATA@@", strconv.Quote(string(blob)),
		"@@VARIANT@@", d.Variant,
		"@@SCENARIO_TEXT@@", indent(d.ScenarioText),
	).Replace(template)
	_, err = io.WriteString(w, out)
	return err
}

func buildSource(p *pysrc.Program, schedule []sched.ThreadID, expect *sched.Failure) (*data, error) {
	sc := p.Scenario
	switch {
	case p.Atomicity != model.GIL && p.Atomicity != model.GILBreaker:
		return nil, unsupported("atomicity %s (only gil and gil-breaker: a GIL build cannot run a free-threaded interleaving)", p.Atomicity)
	case sc.Fixes != 0:
		return nil, unsupported("the simulator fixes %s", sc.Fixes)
	case p.ThreadContext:
		return nil, unsupported("kernel.py patched (-thread-context): a -source replay follows numba-cuda's kernel.py, and its steps for the patched one are not written yet")
	case expect != nil && !replayable[expect.Kind] && expect.Kind != sched.KindDeadlock:
		return nil, unsupported("the violation kind %s", expect.Kind)
	}
	text, err := os.ReadFile(p.Source.File)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p.Source.File, err)
	}
	if pysrc.Digest(text) != p.Digest() {
		return nil, fmt.Errorf("%s changed since it was checked", p.Source.File)
	}
	base := filepath.Base(p.Source.File)
	src := &srcData{File: base, Text: string(text), Name: p.Source.Name, Python: p.Version().String()}
	// every code object of the file, at its number in the interpreter's
	// program (pyvm.Code.ID: the module's code is 0, which the script
	// never runs)
	seen := map[string]bool{}
	var walk func(c *pyvm.Code) error
	walk = func(c *pyvm.Code) error {
		key := fmt.Sprintf("%s:%d", c.QualName, c.FirstLine)
		if seen[key] {
			return unsupported("two code objects %s at line %d of %s (the script tells code objects by name and line)", c.QualName, c.FirstLine, base)
		}
		seen[key] = true
		sc := srcCode{QualName: c.QualName, FirstLine: c.FirstLine}
		for _, in := range c.Instrs {
			sc.Offsets = append(sc.Offsets, in.Offset)
			sc.Ops = append(sc.Ops, in.OpName)
			sc.Lines = append(sc.Lines, in.Line)
		}
		if c.ID() >= len(src.Codes) {
			src.Codes = slices.Grow(src.Codes, c.ID()+1-len(src.Codes))[:c.ID()+1]
		}
		src.Codes[c.ID()] = sc
		for _, k := range c.Consts {
			if k.Code != nil {
				if err := walk(k.Code); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(p.Source.Module); err != nil {
		return nil, err
	}

	fs := newFiles(sc)
	d := &data{
		Variant: "source " + base + ":" + p.Source.Name, Atomicity: p.Atomicity.String(),
		Threads: sc.Threads, Blocks: sc.Blocks, Launches: sc.Launches, Hosts: sc.NumHosts(),
		Signal: p.Signal(), Raiser: p.Raiser(),
		ScenarioText: sc.String(), Files: fs.files, HostModule: hostModule, LaunchLines: fs.launches, Attrs: []string{},
		Source: src,
		// as pyvm.State.Leftovers, which the model's judge reads: a
		// count of 0 in a defaultdict(int) is no leftover
		ZeroCountMissing: true,
	}
	for _, m := range sc.Modules {
		if m.Name == hostModule {
			return nil, unsupported("a scenario module named %s (the host's program has that name)", hostModule)
		}
	}
	// No known swaps: the script installs the file's function whatever
	// the simulator has, so naming the installed one tells nothing, and
	// every variant's rendition would add 12 kB to the script a
	// report.md carries packed (bugreport.WriteSource).
	d.KnownSwaps = []pyFile{}
	for _, pr := range check.Protocols() {
		if pr.Dispatches {
			continue
		}
		// the stand-in's kernel.py, with some rendition the script
		// replaces by the file's function (SourceFile names it)
		text, err := swapcheck.PythonSource(pr.Source)
		if err != nil {
			return nil, fmt.Errorf("internal: no Python rendition for %s: %v", pr.Name, err)
		}
		d.Standin = standin(pr, text)
		d.SourceFile = pr.Source
		break
	}
	if expect != nil {
		d.ExpectKind, d.ExpectMessage = expect.Kind, expect.Message
	}
	d.describeModules(sc)
	for t := range p.NumThreads() {
		d.ThreadNames = append(d.ThreadNames, p.ThreadName(t))
	}
	d.SimKeys = []string{simStart, simPollDone, simPollAbort, simSetContext, simResetContext}
	if sc.NumHosts() > 1 {
		// the several-host check of FakeCUDAKernel.__call__, which the
		// script requires the simulator to have
		d.SimKeys = append(d.SimKeys, simAssert, simDeviceCheck, simDeviceSwap)
	}
	d.Anchors = fs.anchors

	steps, f := pysrc.Run(p, schedule)
	if len(steps) != len(schedule) {
		return nil, fmt.Errorf("the schedule does not replay from the file: %d of its %d steps ran", len(steps), len(schedule))
	}
	if expect != nil && expect.Kind == sched.KindDeadlock {
		// the scheduler's finding: the schedule's end, where no thread
		// can move and some has not finished
		if f != nil {
			return nil, fmt.Errorf("the schedule does not end in the deadlock it was found with, run from the file")
		}
	} else if (f == nil) != (expect == nil) || f != nil && f.Kind != expect.Kind {
		return nil, fmt.Errorf("the schedule does not end in the violation it was found with, run from the file")
	}
	infos := threadInfosOf(sc, sc.NumHosts())
	pos := &positions{sc: sc, fs: fs, infos: infos, counts: make([]map[string]int, p.NumThreads()),
		cursors: make([]map[string]*stmtCursor, p.NumThreads()), paths: make([][]int, p.NumThreads()),
		calls: make([]int, p.NumThreads()), sync: make([]int, p.NumThreads()), last: make([]*lastAt, p.NumThreads())}
	for i, s := range steps {
		tr := turn{Thread: s.Thread}
		if s.Thread == p.Raiser() {
			// RAISE arms the fault (or ends): nobody needs to be anywhere
			tr.Noop, tr.Where = true, "RAISE (the raise fault)"
			d.Turns = append(d.Turns, tr)
			continue
		}
		if s.Thread == p.Signal() {
			// SIGINT: raised by the check after the host's last
			// instruction (its step stopped there), at that pass
			tr.Noop, tr.Where = true, "SIGINT (the interrupt's end)"
			if len(s.Units) > 1 && pos.last[0] == nil {
				return nil, unsupported("an interrupt that lands after an instruction CPython gives no trace event (step %d)", i+1)
			}
			if at := pos.last[0]; len(s.Units) > 1 {
				tr.Noop = false
				tr.Land = &landing{Tag: "src", Op: at.Src.Op, Src: at.Src, N: at.n,
					Text: at.where + " (its eval-breaker check)"}
				tr.Where = "SIGINT lands at " + at.where
			}
			d.Turns = append(d.Turns, tr)
			continue
		}
		a, n, err := pos.walk(s.Thread, s.Units, true)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		if n < 0 {
			tr.Noop, tr.Where = true, "local steps"
			d.Turns = append(d.Turns, tr)
			continue
		}
		tr.At, tr.N, tr.Raise, tr.Alt = a.anchor, n, a.raise, a.alt
		tr.Where = a.where
		d.Turns = append(d.Turns, tr)
	}
	// where each thread that can still move stops: its next step's
	// beginning, one step more of it run in the model
	src.Park = make([]*parkAt, p.NumThreads())
	src.Paths = pos.paths
	for t, next := range pysrc.NextUnits(p, schedule) {
		if len(next) == 0 || t == p.Raiser() || t == p.Signal() || expect != nil && t == int(expect.Thread) {
			// nothing left, a pseudo-thread, or the failing thread, whose
			// step is the schedule's last
			continue
		}
		probe := pos.clone()
		a, n, err := probe.walk(t, next, false)
		if err != nil {
			return nil, fmt.Errorf("the step after the schedule of %s: %w", p.ThreadName(t), err)
		}
		src.Park[t] = &parkAt{At: a.anchor, N: n}
		src.Paths[t] = probe.paths[t]
	}
	for t := range src.Paths {
		if src.Paths[t] == nil {
			src.Paths[t] = []int{} // a list, never null
		}
	}
	return d, nil
}

// positions follows each thread through its units: how many times it
// passed each anchor, and where it is in its kernel's and device
// functions' statements.
type positions struct {
	sc      *scenario.Scenario
	fs      *files
	infos   []threadInfo
	counts  []map[string]int // per thread: anchor key -> passes so far
	cursors []map[string]*stmtCursor
	calls   []int // per host: its device calls so far
	// last is, per thread, the last instruction of the file it ran, and
	// its pass there: where an interrupt lands
	last []*lastAt
	// sync is, per thread, which of cuda.syncthreads()'s sub-steps comes
	// next: 1 the block (after the use), 2 the wait, 0 none
	sync  []int
	paths [][]int // per thread: the file's instructions it ran (srcData.Paths)
}

type lastAt struct {
	placed
	n int
}

type stmtCursor struct {
	run  []*scenario.Stmt
	next int
}

func (ps *positions) clone() *positions {
	c := *ps
	c.counts = make([]map[string]int, len(ps.counts))
	c.cursors = make([]map[string]*stmtCursor, len(ps.cursors))
	c.paths = make([][]int, len(ps.paths))
	c.calls = slices.Clone(ps.calls)
	c.last = slices.Clone(ps.last)
	c.sync = slices.Clone(ps.sync)
	for t := range ps.paths {
		c.paths[t] = slices.Clone(ps.paths[t])
	}
	for t := range ps.counts {
		c.counts[t] = maps(ps.counts[t])
		if ps.cursors[t] != nil {
			c.cursors[t] = map[string]*stmtCursor{}
			for k, v := range ps.cursors[t] {
				cv := *v
				c.cursors[t][k] = &cv
			}
		}
	}
	return &c
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// placed is a unit's anchor, with the text a message shows; raise: the
// raise fault falls there (the statement's fault hook raises); alt: the
// other place the turn may begin (kernel.py's two raises of a dead
// thread's exception).
type placed struct {
	anchor
	where string
	raise bool
	alt   *parkAt
}

// walk passes thread t through units (one step) and returns the anchor
// the step begins at and how many times t passed it before. count:
// the passes are counted (a probe past the schedule counts none).
func (ps *positions) walk(t int, units []pysrc.Unit, count bool) (placed, int, error) {
	first, n := placed{}, -1
	shared := false
	for _, u := range units {
		ps.last[t] = nil
		shared = shared || u.Shared
		a, ok, err := ps.anchorOf(t, u)
		if err != nil {
			return placed{}, 0, err
		}
		if u.Code != nil && !untraced(u.Code, u.Instr) && (count || n < 0) {
			// the thread's path through the file, which the script
			// checks instruction by instruction (a probe's, up to where
			// the thread parks)
			ps.paths[t] = append(ps.paths[t], u.Code.ID(), u.Code.Instrs[u.Instr].Offset)
		}
		if !ok {
			if n < 0 && u.Shared {
				return placed{}, 0, unsupported("a step that begins in code the script does not trace: %s %s", u.Where, u.Bytecode)
			}
			continue
		}
		key := a.key()
		if ps.counts[t] == nil {
			ps.counts[t] = map[string]int{}
		}
		if a.Src != nil {
			ps.last[t] = &lastAt{a, ps.counts[t][key]}
		}
		if n < 0 {
			first, n = a, ps.counts[t][key]
			if first.alt != nil {
				first.alt.N = ps.counts[t][first.alt.At.key()]
			}
		}
		ps.counts[t][key]++
	}
	if n < 0 && !shared && count {
		// only the thread's own frame (with an interrupt, a host's step
		// stops at every check): the turn before it runs it
		return placed{}, -1, nil
	}
	if n < 0 {
		return placed{}, 0, unsupported("a step with no instruction the script can stop at (%d units)", len(units))
	}
	return first, n, nil
}

func (a anchor) key() string {
	switch {
	case a.Src != nil:
		return fmt.Sprintf("src %d %d", a.Src.Code, a.Src.Off)
	case a.Key != "":
		return "sim " + a.Key
	case a.End != "":
		return "end " + a.End
	}
	return fmt.Sprintf("%s %d %d", a.Tag, a.Line, a.K)
}

// anchorOf is where unit u of thread t begins, when the script can stop
// a thread there (ok false: a unit the script passes, as contextlib's).
func (ps *positions) anchorOf(t int, u pysrc.Unit) (placed, bool, error) {
	switch {
	case u.Code != nil:
		in := &u.Code.Instrs[u.Instr]
		if untraced(u.Code, u.Instr) {
			return placed{}, false, nil
		}
		return placed{anchor: anchor{Tag: "src", Src: &srcAt{Code: u.Code.ID(), Off: in.Offset, Op: in.OpName}}, where: u.Where + "  " + u.Text + "  [" + in.OpName + "]"}, true, nil
	case u.Func != "" && strings.HasPrefix(u.Bytecode, "RAISE_VARARGS") && !strings.Contains(u.Bytecode, "a fault"):
		// a kernel's raise statement: local, in the step of the
		// statement before it (pyreplay's flatten leaves it out)
		return placed{}, false, nil
	case u.Func == "host" && strings.HasSuffix(u.Text, "kernel() run inline"):
		// several hosts: the launch runs the kernel inline, as a device
		// function (FakeCUDAKernel.__call__'s device swap)
		ps.enter(t, "kernel", ps.sc.Kernel)
		return placed{anchor: anchor{Tag: "sim", Key: simDeviceSwap}, where: "kernel.py  " + u.Text}, true, nil
	case u.Func == "host":
		// the host program's own device call: its line there; the call
		// passes the device swap's line of kernel.py too
		h := ps.calls[t]
		ps.calls[t]++
		f, ok := ps.fs.hostCall(ps.sc, h)
		if !ok {
			return placed{}, false, fmt.Errorf("internal: the host makes more device calls than its program")
		}
		ps.enter(t, f.Name, f.Body)
		if ps.counts[t] == nil {
			ps.counts[t] = map[string]int{}
		}
		ps.counts[t]["sim "+simDeviceSwap]++
		return placed{anchor: ps.fs.calls[h], where: "host  " + u.Text}, true, nil
	case u.Func != "":
		c := ps.cursor(t, u.Func)
		if c == nil || c.next >= len(c.run) {
			return placed{}, false, fmt.Errorf("internal: %s runs a statement of %s outside a call, or past its end", u.Where, u.Func)
		}
		st := c.run[c.next]
		c.next++
		fault := strings.Contains(u.Bytecode, "a fault")
		if st.Kind == scenario.OpCall && !fault {
			f := ps.sc.Functions[st.Func]
			ps.enter(t, f.Name, f.Body)
		}
		if st.Kind == scenario.OpSync && !fault {
			ps.sync[t] = 1
		}
		a, ok := ps.fs.at[st]
		if !ok {
			return placed{}, false, fmt.Errorf("internal: %s's statement %q has no line", u.Func, u.Text)
		}
		return placed{anchor: a, where: u.Func + "  " + u.Text, raise: fault}, true, nil
	case u.Text == "cuda.syncthreads()":
		// BlockThread.syncthreads: the check of the abort flag and the
		// block, then the wait (or the abort's raise at either)
		key := simSyncCheck
		if ps.sync[t] == 2 {
			key = simSyncWait
		}
		switch {
		case strings.HasPrefix(u.Effect, "blocked at the barrier"):
			ps.sync[t] = 2
		case strings.HasPrefix(u.Effect, "waits for good"):
			return placed{}, false, unsupported("a barrier of an interrupted launch")
		default:
			ps.sync[t] = 0
		}
		return placed{anchor: anchor{Tag: "sim", Key: key}, where: u.Func + "  cuda.syncthreads() " + u.Bytecode}, true, nil
	case u.Where == "kernel.py:84" || u.Where == "kernel.py:31":
		key := simDeviceCheck
		if u.Where == "kernel.py:31" {
			key = simAssert
		}
		return placed{anchor: anchor{Tag: "sim", Key: key}, where: u.Where + "  " + u.Text}, true, nil
	case u.Where == "kernel" && u.Text == "return":
		return placed{anchor: anchor{Tag: "mod:" + ps.sc.Modules[0].Name, End: "kernel"}, where: "kernel  return"}, true, nil
	case u.Where == "kernel.py":
		key := ""
		var alt *parkAt
		switch {
		case strings.HasPrefix(u.Text, "except Exception:"), u.Text == "(the launch's with raises)":
			// the host's caller catches what its launch or call raised
			return placed{}, false, nil
		case strings.HasPrefix(u.Text, "except Exception as e: self.exception"):
			key = simThreadDies
		case strings.HasPrefix(u.Text, "while livethreads") && strings.Contains(u.Effect, " died with "):
			// the poll that finds the exception, or the final check
			// after the loop when the thread died between two polls
			key, alt = simPollAbort, &parkAt{At: anchor{Tag: "sim", Key: simPollDone}}
		case u.Text == "_kernel_context = mod":
			key = simSetContext
		case u.Text == "_kernel_context = None":
			key = simResetContext
		case strings.HasPrefix(u.Text, "t.start()"):
			key = simStart
		case strings.HasPrefix(u.Text, "with swapped_cuda_module(self.fn, fake_cuda_module)"):
			key = simSwapWith
		case strings.HasPrefix(u.Text, "while livethreads") && strings.HasPrefix(u.Effect, "every thread of the block has ended"):
			key = simPollDone
		case strings.HasPrefix(u.Text, "while livethreads") && strings.HasPrefix(u.Effect, "every live thread is at the barrier"):
			key = simPollRelease
		default:
			return placed{}, false, unsupported("the simulator step %q from -source yet", u.Text)
		}
		return placed{anchor: anchor{Tag: "sim", Key: key}, where: "kernel.py  " + u.Text, alt: alt}, true, nil
	}
	return placed{}, false, nil
}

// cursor is thread t's place in function fn's statements, entered at
// the kernel's first for a GPU thread.
func (ps *positions) cursor(t int, fn string) *stmtCursor {
	if ps.cursors[t] == nil {
		ps.cursors[t] = map[string]*stmtCursor{}
	}
	c := ps.cursors[t][fn]
	if c == nil && fn == "kernel" && !ps.infos[t].host {
		c = ps.enter(t, fn, ps.sc.Kernel)
	}
	return c
}

// enter puts thread t at the first statement of fn (body), as run by its
// index and block (a host: -1, stopping at a branch's condition).
func (ps *positions) enter(t int, fn string, body []scenario.Stmt) *stmtCursor {
	if ps.cursors[t] == nil {
		ps.cursors[t] = map[string]*stmtCursor{}
	}
	tid := -1
	if !ps.infos[t].host {
		tid = ps.infos[t].tid
	}
	c := &stmtCursor{run: flatten(body, tid, ps.infos[t].block)}
	ps.cursors[t][fn] = c
	return c
}
