package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// -source FILE[:NAME]: the swap function of a user's Python file, compiled
// by a real CPython (package pysource) and run by package source in the
// model's launch, searched by sched.States. Everything the user gave is
// checked before the search: the interpreter, the file, the function, the
// scenario and every construct of the file (pyvm's refusal pass), each
// refused in one line (exit 2). The verdict: verified (exit 0, naming the
// world), a violation (exit 1, with the trace of the file's instructions),
// or incomplete (exit 3): a limit or a signal stopped the search, or it
// met what the model cannot express (source.KindModelGap), which is never
// a verdict on the file.

// sourceRun is what a -source run checks and how it was asked for.
type sourceRun struct {
	prog  *source.Program
	rerun string // the command that runs it again
	// repro is the search command a report names (sourceRepro), "" for
	// a replay
	repro  string
	shrunk string // what shrinking made smaller ("" when it did not run)
	// steps says what a step of the search was (source.Search's how);
	// strategy names the search (source.StrategyName; "states" for a
	// replay, which searches nothing)
	steps, strategy string
	// want is -want's kind; passed, the other kinds the search met, each
	// of which ended its execution
	want   string
	passed []string
	// scripted is script's result, once rendered
	scripted struct {
		done     bool
		script   []byte
		noScript string
		err      error
	}
}

func runSource(o *options, stdout, stderr io.Writer) (int, error) {
	if err := checkFlagValues(o, modeSource); err != nil {
		return 0, err
	}
	if err := checkReport(o); err != nil {
		return 0, err
	}
	if o.want != "" && !slices.Contains(source.Kinds(), o.want) {
		return 0, usagef("-want %s: not a kind -source reports (one of %s)", o.want, strings.Join(source.Kinds(), ", "))
	}
	a, err := model.ParseAtomicity(o.atomicity)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	sc, err := sourceScenario(o)
	if err != nil {
		return 0, err
	}
	src, err := pysource.Open(o.rr.python, o.source)
	if err != nil {
		return 0, err
	}
	in := src.Interpreter
	p, err := source.LoadWith(src, sc, a, source.Options{ThreadContext: o.threadContext})
	if err != nil {
		return 0, err
	}
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
	}
	if err := checkEmitPath(o); err != nil {
		return 0, err
	}
	// all the input is good: say which interpreter compiled it
	fmt.Fprintf(stderr, "explore: -source: %s\n", interpreterLine(in, o.rr.python))
	args := o.args
	if !o.set["python"] {
		// the rerun compiles with the same feature version
		args = append(args[:len(args):len(args)], "-python", in.Version.String())
	}
	run := &sourceRun{prog: p, rerun: "go run ./cmd/explore " + strings.Join(args, " "), want: o.want, repro: sourceRepro(o, in.Version.String())}

	ctx, stop := interruptContext()
	defer stop()
	var deadline time.Time
	if o.timeout > 0 {
		deadline = time.Now().Add(o.timeout)
	}
	stopNow := func() bool {
		return ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline)
	}
	lim := sched.Limits{MaxDepth: o.maxDepth, Stop: stopNow, Cancel: stopNow}
	prog := newProgress(stderr, o.quiet, 0, 0)
	if prog != nil {
		lim.Progress = prog.update
	}
	start := time.Now()
	var aim *sched.Reaching
	wrap := func(sys sched.System) sched.System {
		if o.want == "" {
			return sys
		}
		aim = sched.NewAiming(sys, o.want)
		return aim
	}
	res, how := source.Search(p, lim, wrap)
	run.steps, run.strategy = how, source.StrategyName(p, lim)
	if res.Verdict == sched.Verified && p.MayLoop() && aim == nil {
		// a loop that can come back to a state: verified says no
		// execution fails, not that every one ends
		hres := sched.Hang(source.New(p), lim)
		hres.Stats = res.Stats // the counts are the search's; the hang check keys its states alike
		if hres.Verdict == sched.Incomplete {
			hres.Cut = "the check that every execution can end (the file has a while loop) " + hres.Cut
		}
		res = hres
	}
	if aim != nil {
		run.passed = slices.DeleteFunc(aim.Kinds(), func(k string) bool { return k == o.want })
	}
	if res.Verdict == sched.Violation && res.Failure.Kind == sched.KindHang && o.shrink {
		run.shrunk = "not shrunk: shrinking searches for a failing execution, and a hang is no one execution"
	} else if res.Verdict == sched.Violation && res.Failure.Kind != source.KindModelGap && o.shrink && o.want == "" {
		run.shrunk = "not shrunk: the scenario is a file"
		if o.scenario == "" {
			run.shrunk = "nothing: no smaller scenario has this kind"
			if _, sp, sres, what := source.Shrink(src, o.shape, a, res.Failure.Kind, lim); len(what) > 0 {
				run.prog, res.Failure, res.Schedule = sp, sres.Failure, sres.Schedule
				run.shrunk = strings.Join(what, ", ")
			}
		}
	}
	elapsed := time.Since(start)
	prog.done()
	if why := run.prog.Partial(); why != "" && res.Verdict == sched.Verified {
		// no violation in a world the model covers only in part
		res.Verdict, res.Cut = sched.Incomplete, why
	}
	if res.Verdict == sched.Incomplete && res.Cut == "stopped" {
		// sched says "stopped"; say what stopped it
		res.Cut = fmt.Sprintf("-timeout %s reached", o.timeout)
		if ctx.Err() != nil {
			res.Cut = stopReason(ctx)
		}
	}
	if err := run.emitPython(o, res); err != nil {
		return 0, err
	}
	outErr, err := run.output(o, res, run.summary(res, elapsed), stdout, stderr)
	if err != nil {
		return 0, err
	}
	verdict := res.Verdict.String()
	if res.Failure != nil {
		verdict = "violation " + res.Failure.Kind
		if res.Failure.Kind == source.KindModelGap {
			verdict = "incomplete (model-gap)"
		}
	}
	fmt.Fprintf(stderr, "explore: -source %s, %s: %s, %s, %s in %.1f ms\n", o.source, verdict,
		check.Count(res.Stats.Executions, "execution"), check.Count(res.Stats.States, "state"), check.Count(res.Stats.Steps, "step"),
		float64(elapsed.Microseconds())/1e3)
	if outErr != nil {
		fmt.Fprintf(stderr, "explore: %s\n", oneLine(outErr.Error()))
		if res.Verdict != sched.Violation {
			return ExitUsage, nil
		}
	}
	return sourceExit(res, run.passed), nil
}

// sourceExit is a -source run's exit status: a model gap is no verdict on
// the file, so it exits as an incomplete search does.
func sourceExit(res sched.Result, passed []string) int {
	switch {
	case res.Verdict != sched.Violation && len(passed) > 0:
		return ExitViolation // -want's kind was not found; others were
	case res.Verdict == sched.Violation && res.Failure.Kind == source.KindModelGap:
		return ExitIncomplete
	case res.Verdict == sched.Violation:
		return ExitViolation
	case res.Verdict == sched.Verified:
		return ExitOK
	}
	return ExitIncomplete
}

// interpreterLine says which interpreter was taken and how it was found:
// "CPython 3.12.1 at /root/.pyenv/versions/3.12.1/bin/python3, found under
// pyenv: the newest supported one".
func interpreterLine(in pysource.Interpreter, spec string) string {
	line := in.String()
	if in.Executable != "" && in.Executable != in.Path {
		line += " (running " + in.Executable + ")"
	}
	switch in.Via {
	case "PATH":
		line += ", found on PATH"
	case "pyenv":
		line += ", found under pyenv"
	}
	switch {
	case spec == "":
		return line + ": the newest supported one (-python picks another)"
	case in.Via == "given":
		return line + ": given by -python"
	}
	return line + ": -python " + spec
}

// sourceScenario is the scenario -source runs: -scenario's file, or the
// one the shape flags build. What of it package source does not run yet
// is source.Load's to refuse.
func sourceScenario(o *options) (*scenario.Scenario, error) {
	if o.shape.Threads > scenario.MaxSourceThreads {
		return nil, usagef("-threads %d: -source searches take at most %d threads per block", o.shape.Threads, scenario.MaxSourceThreads)
	}
	if o.scenario != "" {
		for _, f := range shapeFlags {
			if o.set[f] {
				return nil, usagef("-scenario and -%s both given: the scenario file says it all", f)
			}
		}
		sc, err := readScenario(o.scenario, scenario.MaxSourceThreads)
		if err != nil {
			return nil, err
		}
		return sc, applyFaults(o, sc, scenario.MaxSourceThreads)
	}
	if o.shape.Hosts < 1 { // Build reads 0 as one host; the flag says 1
		return nil, usagef("hosts must be 1..%d, got %d", scenario.MaxHosts, o.shape.Hosts)
	}
	if err := atomicsShape(o); err != nil {
		return nil, err
	}
	sc, err := o.shape.Build()
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return sc, applyFaults(o, sc, scenario.MaxSourceThreads)
}

// sourceRepro is the search command a -source report names to find its
// trace again, as a reader runs it in a checkout of swapcheck with the
// file beside it: the flags given, but those that name files of this
// machine (-out, -emit-python) or say what stdout holds (-report,
// -json), the file by its base name, a scenario file outside testdata/
// as scenario.txt, and -python as the feature version that compiled it.
func sourceRepro(o *options, version string) string {
	words := []string{"go run ./cmd/explore"}
	python := false
	for _, f := range o.flagArgs {
		switch f.name {
		case "out", "emit-python", "report", "json", "force", "quiet":
			continue
		case "source":
			file, name, _ := strings.Cut(o.source, ":")
			spec := filepath.Base(file)
			if name != "" {
				spec += ":" + name
			}
			f = flagWords{f.name, []string{"-source", spec}}
		case "scenario":
			f = flagWords{f.name, []string{"-scenario", portableScenario(o.scenario)}}
		case "python":
			python = true
			f = flagWords{f.name, []string{"-python", version}}
		}
		words = append(words, f.words...)
	}
	if !python {
		words = append(words, "-python", version)
	}
	return strings.Join(words, " ")
}
