package check

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// TraceStep is one step of a replayed counterexample.
type TraceStep struct {
	Thread int
	Event  model.Event
}

// Steps replays a schedule with effects recorded, for rendering.
func Steps(p *model.Program, schedule []sched.ThreadID) ([]TraceStep, error) {
	w := model.New(p)
	w.Trace = true
	out := make([]TraceStep, 0, len(schedule))
	for i, t := range schedule {
		if int(t) < 0 || int(t) >= w.NumThreads() {
			return nil, fmt.Errorf("step %d: no thread %d", i+1, t)
		}
		if st := w.Status(int(t)); st != sched.Runnable {
			return nil, fmt.Errorf("step %d: thread %s is %s, not runnable", i+1, p.ThreadName(int(t)), st)
		}
		out = append(out, TraceStep{Thread: int(t), Event: *w.Step(int(t))})
	}
	return out, nil
}

// TraceSchema names the trace.json layout; with Format it is what a reader
// checks before anything else.
const TraceSchema = "swapcheck-trace"

// Trace is the canonical rendering of a report: every text a trace shows,
// as data. WriteText renders it for people (trace.txt, the command's
// output), WriteJSON as trace.json (docs/trace-format.md); both read only
// this, so they cannot disagree. It holds no pointers, addresses or times.
type Trace struct {
	Schema  string `json:"schema"`  // TraceSchema
	Format  int    `json:"format"`  // FormatVersion
	Version string `json:"version"` // the explore that wrote it
	// Protocol, Atomicity, Strategy: what was checked and how.
	Protocol  string `json:"protocol"`
	Atomicity string `json:"atomicity"`
	Strategy  string `json:"strategy"`
	// Violations is the search's Scope: "harmful" (the default) or "all"
	// (-after-failure).
	Violations string        `json:"violations"`
	Scenario   TraceScenario `json:"scenario"`
	Verdict    string        `json:"verdict"`
	// Shard is "i/n" for one part of a sharded search (whose verdict is
	// then PartNoViolation or violation).
	Shard string `json:"shard,omitempty"`
	// Coverage says what a search without a violation covered.
	Coverage string `json:"coverage,omitempty"`
	// Threads are the threads' names, by thread number (0 is the host).
	Threads []string `json:"threads"`
	// Schedule is the thread number of every step, as schedule.txt's.
	Schedule    []int           `json:"schedule"`
	Preemptions int             `json:"preemptions"`
	Steps       []TraceEntry    `json:"steps,omitempty"`
	Violation   *TraceViolation `json:"violation,omitempty"`
	// Shrunk says what shrinking made smaller, from what to what
	// (Shrinking.String); absent when it did not run.
	Shrunk string `json:"shrunk,omitempty"`
	// FreeThreadedOnly says why only a free-threaded build can run this
	// counterexample (see freeThreadedOnly); absent when a GIL build can.
	FreeThreadedOnly string `json:"free_threaded_only,omitempty"`
	// Corpus is the corpus file whose schedule, replayed before any
	// search, gave this counterexample; absent when a search found it.
	Corpus string `json:"corpus,omitempty"`
	// Replay is the command that prints this trace again.
	Replay string `json:"replay,omitempty"`
}

// TraceScenario is the scenario both as its file's text (what a reader
// parses) and parsed (for a reader of the JSON alone); they agree.
type TraceScenario struct {
	Text      string          `json:"text"`
	Threads   int             `json:"threads"`
	Blocks    int             `json:"blocks"`
	Launches  int             `json:"launches"`
	Modules   []TraceModule   `json:"modules"`
	Functions []TraceFunction `json:"functions"`
	// Kernel is the kernel's body, one statement each, as the scenario
	// file spells it ("use cuda.threadIdx", "call f1").
	Kernel []string `json:"kernel"`
}

// TraceModule is a module and its globals bound to the real cuda module.
type TraceModule struct {
	Name  string   `json:"name"`
	Names []string `json:"names"`
}

// TraceFunction is a device function: its name, its module's name and its
// body's statements.
type TraceFunction struct {
	Name   string   `json:"name"`
	Module string   `json:"module"`
	Body   []string `json:"body"`
}

// TraceEntry is one step: the thread that took it, the Python line it
// stands for (Where is "naive.py:11" for a variant's line, "kernel.py"
// for the simulator's, "kernel" or a device function's name for the
// scenario's code), the bytecode(s), what it read or changed in the
// globals and registries, and the exception it raised.
type TraceEntry struct {
	Step       int      `json:"step"`
	Thread     int      `json:"thread"`
	ThreadName string   `json:"thread_name"`
	Where      string   `json:"where"`
	Line       int      `json:"line,omitempty"`
	Text       string   `json:"text"`
	Bytecode   string   `json:"bytecode"`
	Effects    []string `json:"effects,omitempty"`
	Raises     string   `json:"raises,omitempty"`
	// UnrealSwitch: this step switches threads where CPython 3.11 with the
	// GIL cannot (see unrealSwitches); only traces of -atomicity gil have it.
	UnrealSwitch bool `json:"unreal_switch,omitempty"`
	// AfterFailure is the kind of an after-failure violation this step
	// made and the search stepped past (a thread of a launch that had
	// already failed saw a wrong module, or the swap raised in it).
	AfterFailure string `json:"after_failure,omitempty"`
}

// TraceViolation is what went wrong: the kind (one of Kinds), the failing
// thread's name ("" when no one thread failed: an end-state invariant or
// a deadlock), the step that failed (the last), the message and the
// violation's class.
type TraceViolation struct {
	Kind string `json:"kind"`
	// Harm is its class: "harmful" or "after-failure" (see Harm).
	Harm    string `json:"harm"`
	Thread  string `json:"thread"`
	Step    int    `json:"step"`
	Message string `json:"message"`
}

// NewTrace renders a report as a Trace; repro is the command that replays
// it.
func NewTrace(r *Report, repro string) (*Trace, error) {
	res := r.Result
	cfg := r.Config
	p := r.Program
	t := &Trace{
		Schema: TraceSchema, Format: FormatVersion, Version: Version,
		Protocol: cfg.Protocol.Name, Atomicity: cfg.Atomicity.String(), Strategy: cfg.Strategy,
		Violations: cmp.Or(cfg.Scope, ScopeHarmful).String(),
		Scenario:   traceScenario(cfg.Scenario), Verdict: VerdictName(r), Shard: ShardName(cfg),
		Schedule: ScheduleInts(res.Schedule), Steps: []TraceEntry{}, Replay: repro,
	}
	for n := range p.NumThreads() {
		t.Threads = append(t.Threads, p.ThreadName(n))
	}
	if res.Verdict != sched.Violation {
		t.Coverage = fmt.Sprintf("strategy %s: %s", cfg.Strategy, coverage(r))
		return t, nil
	}
	steps, err := Steps(p, res.Schedule)
	if err != nil {
		return nil, fmt.Errorf("internal: the counterexample does not replay: %v", err)
	}
	unreal, _ := unrealSwitches(steps)
	for i, s := range steps {
		ev := s.Event
		e := TraceEntry{UnrealSwitch: unreal[i], Step: i + 1, Thread: s.Thread, ThreadName: p.ThreadName(s.Thread),
			Where: ev.Where, Line: ev.Line, Text: ev.Text, Bytecode: ev.Bytecode, Effects: ev.Effects}
		if ev.Raised != 0 {
			e.Raises = ev.Raised.String()
		}
		if f, h := stepFailure(p, &ev); f != nil && h == AfterFailure && i < len(steps)-1 {
			e.AfterFailure = f.Kind
		}
		t.Steps = append(t.Steps, e)
	}
	t.Preemptions = r.Preemptions
	t.Shrunk, t.Corpus = r.ShrunkText(), r.Corpus
	t.FreeThreadedOnly = freeThreadedOnly(p, steps)
	harm := FailureHarm(p, res.Schedule, res.Failure)
	t.Violation = &TraceViolation{Kind: res.Failure.Kind, Harm: harm.String(), Thread: FailureThread(p, *res.Failure), Step: len(steps), Message: res.Failure.Message}
	return t, nil
}

// traceScenario is a scenario as a Trace holds it.
func traceScenario(sc *scenario.Scenario) TraceScenario {
	ts := TraceScenario{Text: sc.String(), Threads: sc.Threads, Blocks: sc.Blocks, Launches: sc.Launches,
		Modules: []TraceModule{}, Functions: []TraceFunction{}, Kernel: []string{}}
	for _, m := range sc.Modules {
		ts.Modules = append(ts.Modules, TraceModule{Name: m.Name, Names: m.Names})
	}
	body := func(mod int, stmts []scenario.Stmt) []string {
		out := []string{}
		for _, s := range stmts {
			out = append(out, sc.StmtString(mod, s))
		}
		return out
	}
	for _, f := range sc.Functions {
		ts.Functions = append(ts.Functions, TraceFunction{Name: f.Name, Module: sc.Modules[f.Module].Name, Body: body(f.Module, f.Body)})
	}
	ts.Kernel = body(0, sc.Kernel)
	return ts
}

// WriteTrace renders a report for a person (Trace.WriteText); repro is the
// command that replays it.
func WriteTrace(out io.Writer, r *Report, repro string) error {
	t, err := NewTrace(r, repro)
	if err != nil {
		return err
	}
	return t.WriteText(out)
}

// WriteText renders the trace for a person: the verdict, and for a
// violation the failure, then one column per thread and one row per step,
// each with its Python line and what it did, the failing step marked, and
// the command that replays it.
func (t *Trace) WriteText(out io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol %s, atomicity %s\n", t.Protocol, t.Atomicity)
	if t.Violation == nil && t.Verdict == PartNoViolation {
		fmt.Fprintf(&b, "verdict: part %s: no violation in its share, which proves nothing alone: explore merge of every part's summary.json gives the verdict (%s)\n", t.Shard, t.Coverage)
		_, err := io.WriteString(out, b.String())
		return err
	}
	if t.Violation == nil {
		fmt.Fprintf(&b, "verdict: %s, nothing to report (%s)\n", t.Verdict, t.Coverage)
		_, err := io.WriteString(out, b.String())
		return err
	}
	fmt.Fprintf(&b, "verdict: violation %s (%s)\n", t.Violation.Kind, harmWords(t.Violation.Harm))
	para(&b, t.Violation.Message)
	b.WriteString("\n")
	if t.Corpus != "" {
		para(&b, "found in the corpus, before any search: "+t.Corpus)
		b.WriteString("\n")
	}
	if t.Shrunk != "" {
		para(&b, "shrunk: "+t.Shrunk)
		b.WriteString("\n")
	}
	if t.FreeThreadedOnly != "" {
		para(&b, t.FreeThreadedOnly)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "scenario:\n")
	for _, line := range strings.Split(strings.TrimRight(t.Scenario.Text, "\n"), "\n") {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	b.WriteString("\n")
	para(&b, fmt.Sprintf("%s (%s), each one atomic CPython operation of its thread:", Count(len(t.Steps), "step"), Count(t.Preemptions, "preemption")))
	b.WriteString("\n")
	writeSwitchLegend(&b, t.unrealSwitches())
	t.writeTable(&b)
	b.WriteString("\n" + strings.Join(commandLines("replay: "+t.Replay, 0, TextWidth), "\n") + "\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// para writes text as lines of at most TextWidth runes, the lines after
// the first indented.
func para(b *strings.Builder, text string) {
	for _, line := range wrap(text, TextWidth, "    ") {
		b.WriteString(line + "\n")
	}
}

// WriteTable writes the steps alone, as WriteText shows them: one column
// per thread that took a step, the failing step marked.
func (t *Trace) WriteTable(out io.Writer) error {
	var b strings.Builder
	t.writeTable(&b)
	_, err := io.WriteString(out, b.String())
	return err
}

// harmWords is a violation's class as the trace's head says it.
func harmWords(harm string) string {
	if harm == AfterFailure.String() {
		return "after failure: only a thread of a launch that had already failed saw it"
	}
	return harm
}

// coverage says what a search covered, in words.
func coverage(r *Report) string {
	st := r.Result.Stats
	s := Count(st.Executions, "execution") + ", " + Count(st.States, "state") + ", " + Count(st.Steps, "step")
	if r.Result.Cut != "" {
		s += "; stopped: " + r.Result.Cut
	}
	if line := AfterFailureLine(r); line != "" {
		s += "; " + line
	}
	return s
}

// AfterFailureLine says, when the search stepped past after-failure
// violations (ScopeHarmful), how many and of which kinds, and how to see
// one; "" when it met none.
func AfterFailureLine(r *Report) string {
	if r.AfterFailures == 0 {
		return ""
	}
	return fmt.Sprintf("%s of threads of already-failed launches broke an invariant (%s): after failure, harmless; -after-failure shows one",
		Count(r.AfterFailures, "step"), strings.Join(r.AfterFailureKinds, ", "))
}
