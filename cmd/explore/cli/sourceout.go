package cli

import (
	"fmt"
	"io"
	"strings"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/source"
)

// writeText prints a -source run's result (res, whose trace is t) for a
// person: what was checked (the file as given, the function, the CPython
// version and the atomicity), the verdict, the world it covers, the
// scenario and, for a violation or a model gap, the trace of the steps
// that lead to it and the command that runs it again. Nothing in it
// depends on the machine or the clock.
func (r *sourceRun) writeText(out io.Writer, res sched.Result, t *check.SourceTrace) error {
	p := r.prog
	var b strings.Builder
	para(&b, fmt.Sprintf("source %s, function %s", p.Source.File, p.Source.Name))
	para(&b, fmt.Sprintf("%s bytecode, atomicity %s", cpython(p), p.Atomicity))
	st := res.Stats
	counts := check.Count(st.States, "state") + ", " + check.Count(st.Executions, "execution") + ", " + check.Count(st.Steps, "step")
	switch {
	case res.Verdict == sched.Verified && len(r.passed) > 0:
		para(&b, fmt.Sprintf("verdict: no execution reaches %s before another violation: the search covered every reachable state%s: %s; it met %s, each of which ended its execution (run without -want for a trace)",
			r.want, r.reduction(), counts, strings.Join(r.passed, ", ")))
		para(&b, "the world searched: "+r.world(st.States))
	case res.Verdict == sched.Verified:
		para(&b, "verdict: verified: the search covered every reachable state"+r.reduction()+": "+counts)
		para(&b, "the world verified: "+r.world(st.States))
		para(&b, "checked: "+sourceChecks(p)+"; not checked: linearizability")
	case res.Verdict == sched.Violation && res.Failure.Kind == source.KindModelGap:
		para(&b, fmt.Sprintf("verdict: incomplete: the search met what -source cannot model (%s) after %s; nothing is proved", source.KindModelGap, counts))
		para(&b, failureText(p, res.Failure))
	case res.Verdict == sched.Violation:
		para(&b, "verdict: violation "+res.Failure.Kind)
		para(&b, failureText(p, res.Failure))
		if res.Failure.Kind == sched.KindDeadlock || res.Failure.Kind == sched.KindHang {
			for _, line := range source.Waiting(p, res.Schedule) {
				para(&b, line)
			}
		}
		if len(r.passed) > 0 {
			para(&b, fmt.Sprintf("(-want %s: the search met %s first, each of which ended its execution)", r.want, strings.Join(r.passed, ", ")))
		}
		if r.shrunk != "" {
			b.WriteString("\n")
			para(&b, "shrunk: "+r.shrunk)
		}
	case res.Verdict == sched.NoViolationFound:
		para(&b, "verdict: no violation on this schedule: its steps ran to the end; nothing is proved of other schedules")
	case res.Verdict == sched.Incomplete && res.Cut == p.Partial() && len(r.passed) > 0:
		para(&b, fmt.Sprintf("verdict: incomplete: no execution reached %s before another violation in %s, but %s; it met %s, each of which ended its execution (run without -want for a trace)",
			r.want, counts, p.Partial(), strings.Join(r.passed, ", ")))
		para(&b, "the world searched: "+r.world(st.States))
	case res.Verdict == sched.Incomplete && res.Cut == p.Partial():
		para(&b, fmt.Sprintf("verdict: incomplete: no violation in %s, but %s", counts, p.Partial()))
		para(&b, "the world searched: "+r.world(st.States))
	default:
		para(&b, fmt.Sprintf("verdict: incomplete: the search stopped (%s) after %s, without a violation; nothing is proved", res.Cut, counts))
		para(&b, "the world searched: "+r.world(st.States))
	}
	b.WriteString("\nscenario:\n")
	for _, line := range strings.Split(strings.TrimRight(p.Scenario.String(), "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	if res.Verdict == sched.Violation {
		b.WriteString("\n")
		para(&b, fmt.Sprintf("%s (%s); %s:", check.Count(len(t.Steps), "step"), check.Count(t.Preemptions, "preemption"), stepMeaning(p)))
		b.WriteString("\n")
		writeSourceTable(&b, t)
		b.WriteString("\nrerun: " + r.rerun + "\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// trace is r's result as its trace.json and trace.html render it (and
// its text's table), sum its summary.
func (r *sourceRun) trace(res sched.Result, sum sourceSummary) (*check.SourceTrace, error) {
	cov := fmt.Sprintf("strategy %s: %s, %s%s; the world: %s", sum.Strategy,
		check.Count(res.Stats.Executions, "execution"), check.Count(res.Stats.Steps, "step"),
		r.reduction(), r.world(res.Stats.States))
	if res.Cut != "" {
		cov += "; stopped: " + res.Cut
	}
	return check.NewSourceTrace(check.SourceRun{Program: r.prog, Result: res, Verdict: sum.Verdict,
		Strategy: sum.Strategy, Coverage: cov, Shrunk: r.shrunk, Replay: r.rerun})
}

// reduction says how the search counts states: up to a renaming of
// alike GPU threads (package source's key, Program.Symmetry), else one
// by one; and, when its steps were transactions (source.Search), that
// it counts the states at their ends.
func (r *sourceRun) reduction() string {
	s := " (every state counted: no symmetry reduction)"
	if r.prog.Symmetry {
		s = ", up to a renaming of alike GPU threads"
	}
	if strings.HasPrefix(r.steps, "transactions") {
		s += ", at the ends of its " + r.steps
	} else if why, ok := strings.CutPrefix(r.steps, "every instruction a step: "); ok {
		s += ", no transactions (" + why + ")"
	}
	return s
}

// cpython is the interpreter whose bytecode runs: "CPython 3.12.1".
func cpython(p *source.Program) string {
	return "CPython " + p.Source.Interpreter.Release()
}

// world says which world a -source verdict covers.
func (r *sourceRun) world(states int64) string {
	p := r.prog
	sc := p.Scenario
	faults := "no faults"
	if sc.Faults != 0 {
		faults = fmt.Sprintf("faults %s (at most %d per execution; a violation only a thread of an already failed launch saw is stepped past)",
			sc.Faults, sc.FaultBound())
	}
	return fmt.Sprintf("%s, %s of %s of %s; %s; atomicity %s; %s bytecode; %s",
		check.Count(sc.NumHosts(), "host"), check.Count(sc.Launches, "launch"), check.Count(sc.Blocks, "block"), check.Count(sc.Threads, "GPU thread"),
		faults, p.Atomicity, cpython(p), check.Count(states, "state"))
}

// sourceChecks says what a -source search checks (package source's
// doc, "What is checked").
func sourceChecks(p *source.Program) string {
	return fmt.Sprintf("every use of cuda sees its launch's fake; no exception leaves %s, its __enter__ or its __exit__; "+
		"after the launch every module's globals hold the real module and the file's registries hold nothing its set-up did not; no deadlock",
		p.Source.Name)
}

// failureText is a failure's message, after the failing thread's name.
func failureText(p *source.Program, f *sched.Failure) string {
	if f.Thread < 0 {
		return f.Message
	}
	return p.ThreadName(int(f.Thread)) + ": " + f.Message
}

// stepMeaning says what one step of a -source trace is, under the
// program's atomicity (package source's doc, "One step").
func stepMeaning(p *source.Program) string {
	const sim = "or one statement of the simulator's code (kernel.py, the kernel, the device functions)"
	const local = "the instructions before it touch only the thread's own frame"
	switch p.Atomicity {
	case model.GILBreaker:
		return fmt.Sprintf("a step runs its thread from one eval-breaker check of CPython %s to the next, to a lock it blocks on, %s", p.Version(), sim)
	case model.FreeThreaded, model.FreeThreadedOverwrite:
		return "a step runs its thread up to one instruction that touches what another thread can (a defaultdict miss split as a free-threaded build runs it) " + sim + "; " + local
	}
	return "a step runs its thread up to one instruction that touches what another thread can " + sim + "; " + local
}

// para writes text as lines of at most check.TextWidth columns, the
// lines after the first indented by four.
func para(b *strings.Builder, text string) {
	b.WriteString(wrap(text, check.TextWidth-4, "    ") + "\n")
}
