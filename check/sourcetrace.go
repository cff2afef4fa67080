package check

import (
	"encoding/json"
	"fmt"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// A -source run has one canonical rendering too, SourceTrace: its
// trace.txt table, its trace.json and its trace.html are renderings of
// it, as Trace is the listings'. It differs from Trace where a source
// step differs from a listing's: a step runs several instructions of the
// user's file (its units), each naming its line and opcode, and what was
// checked is a file and a function, not a variant.

// SourceTraceSchema names a -source run's trace.json; SourceTraceFormat
// is its layout's version (docs/trace-format.md, "-source").
const (
	SourceTraceSchema = "swapcheck-source-trace"
	SourceTraceFormat = 1
)

// SourceTrace is a -source run as data: what was checked, the verdict
// and, with a violation or a model gap, every step.
type SourceTrace struct {
	Schema  string `json:"schema"`
	Format  int    `json:"format"`
	Version string `json:"version"` // the explore that wrote it
	// Source is the file and function checked and the CPython whose
	// bytecode ran.
	Source    SourceFile `json:"source"`
	Atomicity string     `json:"atomicity"`
	// Kernel is "thread-context" when kernel.py ran patched
	// (-thread-context), absent otherwise.
	Kernel   string        `json:"kernel,omitempty"`
	Strategy string        `json:"strategy"`
	Scenario TraceScenario `json:"scenario"`
	// Verdict is the summary's: violation, verified, incomplete (a model
	// gap too), no-violation-found or not-reachable (-want).
	Verdict  string `json:"verdict"`
	Coverage string `json:"coverage,omitempty"`
	// Threads are the threads' names by number; Schedule the thread of
	// every step, as schedule.txt's steps.
	Threads     []string     `json:"threads"`
	Schedule    []int        `json:"schedule"`
	Preemptions int          `json:"preemptions"`
	Steps       []SourceStep `json:"steps,omitempty"`
	// Violation is what went wrong in the file's code; ModelGap what the
	// search met that the model cannot express (no verdict on the file).
	Violation *SourceFailure `json:"violation,omitempty"`
	ModelGap  *SourceFailure `json:"model_gap,omitempty"`
	Shrunk    string         `json:"shrunk,omitempty"`
	Replay    string         `json:"replay,omitempty"`
}

// SourceFile is what -source checked: the file as given, the function,
// the digest of the file's bytes, the CPython feature version whose
// bytecode ran ("3.12", what a replay compiles with) and the interpreter
// that compiled it ("3.12.1").
type SourceFile struct {
	File        string `json:"file"`
	Function    string `json:"function"`
	SHA256      string `json:"sha256"`
	Python      string `json:"python"`
	Interpreter string `json:"interpreter"`
}

// SourceStep is one step: its thread and the units it ran.
type SourceStep struct {
	Step       int          `json:"step"`
	Thread     int          `json:"thread"`
	ThreadName string       `json:"thread_name"`
	Units      []SourceUnit `json:"units"`
}

// SourceUnit is one instruction of the file (Where "kernelapi.py:27",
// Line 27, its text and opcode), a C-level step of the interpreter (no
// text: a contextlib helper, a builtin driving a generator), or a
// statement of the simulator's code (Where "kernel.py" or a device
// function's name); Effect is what it did that a reader needs.
type SourceUnit struct {
	Where    string `json:"where"`
	Line     int    `json:"line,omitempty"`
	Text     string `json:"text,omitempty"`
	Bytecode string `json:"bytecode,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// SourceFailure is a violation or a model gap: its kind, the failing
// thread's name ("" when no one thread failed: an end-state check, a
// deadlock), the step it came at (the last) and the message.
type SourceFailure struct {
	Kind    string `json:"kind"`
	Thread  string `json:"thread"`
	Step    int    `json:"step"`
	Message string `json:"message"`
}

// SourceRun is what NewSourceTrace renders: the program and its result,
// and what the command line decided about them (the verdict's name, what
// a search without a violation covered, what shrinking did, the command
// that runs it again).
type SourceRun struct {
	Program  *source.Program
	Result   sched.Result
	Verdict  string
	Strategy string
	Coverage string
	Shrunk   string
	Replay   string
}

// NewSourceTrace renders r as a SourceTrace; a failure's schedule is run
// again (source.Run) for its steps, and must end as the search said: the
// world is deterministic, so anything else is a broken invariant of
// package source. (A deadlock is the scheduler's finding: the run just
// stops with threads left.)
func NewSourceTrace(r SourceRun) (*SourceTrace, error) {
	p, res := r.Program, r.Result
	in := p.Source.Interpreter
	t := &SourceTrace{
		Schema: SourceTraceSchema, Format: SourceTraceFormat, Version: Version,
		Source: SourceFile{File: p.Source.File, Function: p.Source.Name, SHA256: p.Digest(),
			Python: in.Version.String(), Interpreter: in.Release()},
		Atomicity: p.Atomicity.String(), Strategy: r.Strategy, Scenario: traceScenario(p.Scenario),
		Verdict: r.Verdict, Schedule: []int{}, Shrunk: r.Shrunk, Replay: r.Replay,
	}
	if p.ThreadContext {
		t.Kernel = source.KernelThreadContext
	}
	for n := range p.NumThreads() {
		t.Threads = append(t.Threads, p.ThreadName(n))
	}
	f := res.Failure
	if res.Verdict != sched.Violation || f == nil {
		t.Coverage = r.Coverage
		return t, nil
	}
	t.Schedule = ScheduleInts(res.Schedule)
	steps, replayed := source.Run(p, res.Schedule)
	switch {
	case replayed == nil && (f.Kind == sched.KindDeadlock || f.Kind == sched.KindHang):
	case replayed == nil || replayed.Kind != f.Kind || replayed.Message != f.Message:
		return nil, fmt.Errorf("internal: the -source counterexample replays to %v, not to the search's %v", replayed, f)
	}
	for i, s := range steps {
		st := SourceStep{Step: i + 1, Thread: s.Thread, ThreadName: p.ThreadName(s.Thread), Units: []SourceUnit{}}
		for _, u := range s.Units {
			st.Units = append(st.Units, SourceUnit{Where: u.Where, Line: u.Line, Text: u.Text, Bytecode: u.Bytecode, Effect: u.Effect})
		}
		t.Steps = append(t.Steps, st)
	}
	t.Preemptions = sched.CountPreemptions(source.New(p), res.Schedule)
	sf := &SourceFailure{Kind: f.Kind, Step: len(steps), Message: f.Message}
	if f.Thread >= 0 {
		sf.Thread = p.ThreadName(int(f.Thread))
	}
	if f.Kind == source.KindModelGap {
		t.ModelGap = sf
	} else {
		t.Violation = sf
	}
	return t, nil
}

// Failure is the trace's violation or model gap (nil for neither).
func (t *SourceTrace) Failure() *SourceFailure {
	if t.Violation != nil {
		return t.Violation
	}
	return t.ModelGap
}

// SourceLine is what a step's cell shows for a run of its units: a line
// of the file (or a statement of the simulator's code) with the opcodes
// its units ran and what they did, or, Native, a C-level step of the
// interpreter, its Bytecode alone.
type SourceLine struct {
	Where, Text string
	Native      bool
	Bytecode    []string
	Effects     []string
}

// Lines groups the step's consecutive units of one line of code, as the
// text table and the page both show them.
func (s SourceStep) Lines() []SourceLine {
	var out []SourceLine
	units := s.Units
	for i := 0; i < len(units); {
		u := units[i]
		if u.Text == "" {
			out = append(out, SourceLine{Where: u.Where, Native: true, Bytecode: []string{u.Bytecode}})
			i++
			continue
		}
		l := SourceLine{Where: u.Where, Text: u.Text}
		j := i
		for ; j < len(units) && units[j].Where == u.Where && units[j].Text == u.Text; j++ {
			if units[j].Bytecode != "" {
				l.Bytecode = append(l.Bytecode, units[j].Bytecode)
			}
			if units[j].Effect != "" {
				l.Effects = append(l.Effects, units[j].Effect)
			}
		}
		out = append(out, l)
		i = j
	}
	return out
}

// Lanes are the threads that took a step, in thread order, and the lane
// of each thread number (-1 for a thread that took none).
func (t *SourceTrace) Lanes() (names []string, laneOf []int) {
	return lanes(t.Threads, len(t.Steps), func(i int) int { return t.Steps[i].Thread })
}

// Lanes is SourceTrace.Lanes of a listing's trace.
func (t *Trace) Lanes() (names []string, laneOf []int) {
	return lanes(t.Threads, len(t.Steps), func(i int) int { return t.Steps[i].Thread })
}

// lanes are the threads of threads that took one of n steps (thread(i)
// took step i), in thread order, and the lane of each thread number.
func lanes(threads []string, n int, thread func(i int) int) (names []string, laneOf []int) {
	laneOf = make([]int, len(threads))
	for i := range laneOf {
		laneOf[i] = -1
	}
	for i := range n {
		laneOf[thread(i)] = 0
	}
	for t, name := range threads {
		if laneOf[t] == 0 {
			laneOf[t] = len(names)
			names = append(names, name)
		}
	}
	return names, laneOf
}

// IsSourceTrace reports whether data is a -source run's trace.json (its
// "schema" is SourceTraceSchema), which ReadSourceTrace reads.
func IsSourceTrace(data []byte) bool {
	var head struct {
		Schema string `json:"schema"`
	}
	return json.Unmarshal(data, &head) == nil && head.Schema == SourceTraceSchema
}

// ReadSourceTrace parses a -source run's trace.json as what a replay
// needs (source.Schedule): the file, its digest, the function, the
// CPython feature version, the atomicity, the scenario and the steps. It
// refuses, in one line, a file of another format or one whose fields do
// not make a schedule.
func ReadSourceTrace(data []byte) (*source.Schedule, error) {
	var t SourceTrace
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a -source trace.json: %v", err)
	}
	if t.Schema != SourceTraceSchema {
		return nil, fmt.Errorf("not a -source trace.json: its \"schema\" is %q, not %q", versionText(t.Schema), SourceTraceSchema)
	}
	if t.Format != SourceTraceFormat {
		return nil, fmt.Errorf("the -source trace.json is of format %d (written by explore %s), but explore %s reads format %d",
			t.Format, versionText(t.Version), Version, SourceTraceFormat)
	}
	s := &source.Schedule{File: t.Source.File, Name: t.Source.Function, SHA256: t.Source.SHA256, Python: t.Source.Python}
	if s.File == "" || s.Name == "" {
		return nil, fmt.Errorf("the -source trace.json names no file or no function")
	}
	for _, err := range []error{source.CheckDigest(s.SHA256), source.CheckPython(s.Python)} {
		if err != nil {
			return nil, fmt.Errorf("the -source trace.json's %v", err)
		}
	}
	var err error
	if s.Atomicity, err = model.ParseAtomicity(t.Atomicity); err != nil {
		return nil, fmt.Errorf("the -source trace.json's atomicity: %v", err)
	}
	switch t.Kernel {
	case "":
	case source.KernelThreadContext:
		s.ThreadContext = true
	default:
		return nil, fmt.Errorf("the -source trace.json's kernel %q: want %q or none", t.Kernel, source.KernelThreadContext)
	}
	if s.Scenario, err = scenario.Parse(strings.NewReader(t.Scenario.Text)); err != nil {
		return nil, fmt.Errorf("the -source trace.json's scenario: %v", err)
	}
	for _, n := range t.Schedule {
		if !source.IsThreadNumber(n) {
			return nil, fmt.Errorf("the -source trace.json's schedule has %d, not a thread number", n)
		}
		s.Steps = append(s.Steps, sched.ThreadID(n))
	}
	return s, nil
}
