package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/stress"
)

// The goroutine backend (-backend goroutines): the same protocols run as
// real goroutines under stress (package stress), and -compare, which
// times every strategy and stress on the buggy variants.

const (
	backendModel      = "model"
	backendGoroutines = stress.Backend
)

// stressOptions are the flags of the goroutine backend.
type stressOptions struct {
	backend  string
	duration time.Duration
	maxCalls int64
	gosched  float64
	compare  bool
	trials   int
}

// stressOnly are the flags that only the goroutine backend (or -compare)
// reads; searchOnly, those it does not.
var (
	stressOnly = []string{"duration", "max-calls", "gosched"}
	searchOnly = []string{"strategy", "runs", "workers", "max-executions", "max-depth", "timeout", "replay", "shard", "quiet"}
)

func registerStressFlags(fs *flag.FlagSet, o *options) {
	s := &o.stress
	fs.StringVar(&s.backend, "backend", backendModel, "model (the simulated scheduler's searches) or goroutines (stress: every thread a real goroutine, launch after launch)")
	fs.DurationVar(&s.duration, "duration", 0, "-backend goroutines: stress for this long (default 1s when -max-calls is not given either); -compare: the cap of each trial (default 10s)")
	fs.Int64Var(&s.maxCalls, "max-calls", 0, "-backend goroutines: stop after this many device calls (0: no limit), counted at the end of each launch")
	fs.Float64Var(&s.gosched, "gosched", stress.DefaultGosched, "-backend goroutines: the probability that a goroutine yields (runtime.Gosched) after a step, drawn from -seed")
	fs.BoolVar(&s.compare, "compare", false, "time the first counterexample of each buggy variant by every strategy and by stress, and print a Markdown table")
	fs.IntVar(&s.trials, "trials", 5, "-compare: runs per cell (the median is shown)")
}

// runBackend runs the goroutine backend or -compare and reports handled;
// for the model backend it checks the flags only it rejects and leaves the
// rest to run.
func runBackend(o *options, stdout, stderr io.Writer) (code int, handled bool, err error) {
	s := &o.stress
	switch {
	case s.compare:
		return runCompare(o, stdout, stderr)
	case s.backend == backendGoroutines:
		code, err := runStress(o, stdout, stderr)
		return code, true, err
	case s.backend != backendModel:
		return 0, true, usagef("unknown -backend %q (want %s or %s)", s.backend, backendModel, backendGoroutines)
	}
	for _, f := range stressOnly {
		if o.set[f] {
			return 0, true, usagef("-%s needs -backend %s", f, backendGoroutines)
		}
	}
	if o.shape.Threads > model.MaxThreads {
		// (no "goroutine" in a usage error: tests take it for a panic's dump)
		return 0, true, usagef("-threads %d: the searches take at most %d threads per block; stress testing on real threads takes up to %d (see -backend)",
			o.shape.Threads, model.MaxThreads, model.MaxStressThreads)
	}
	return 0, false, nil
}

// stressConfig builds a stress run from the flags.
func stressConfig(o *options) (stress.Config, error) {
	var cfg stress.Config
	for _, f := range searchOnly {
		if o.set[f] {
			return cfg, usagef("-backend %s and -%s both given: -%s is for the model's searches", backendGoroutines, f, f)
		}
	}
	p, a, sc, err := target(o, model.MaxStressThreads)
	if err != nil {
		return cfg, err
	}
	s := o.stress
	if s.duration == 0 && s.maxCalls == 0 {
		s.duration = time.Second
	}
	cfg = stress.Config{Protocol: p, Scenario: sc, Atomicity: a, Duration: s.duration, MaxCalls: s.maxCalls,
		Seed: o.seed, Gosched: s.gosched}
	return cfg, nil
}

func runStress(o *options, stdout, stderr io.Writer) (int, error) {
	cfg, err := stressConfig(o)
	if err != nil {
		return 0, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg.Stop, cfg.StopReason = func() bool { return ctx.Err() != nil }, "interrupted"
	// A stress run is not deterministic: its command runs it again; a
	// schedule file written by -out replays this run's violation exactly.
	repro := "go run ./cmd/explore " + strings.Join(o.args, " ") + "   (stress again: not deterministic; -out DIR saves a schedule that replays this run exactly)"
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
		repro = "go run ./cmd/explore -replay " + filepath.Join(o.out, "schedule.txt")
		if cfg.Scenario.Threads > model.MaxThreads {
			repro = fmt.Sprintf("the simulator replays %s in-process (explore -replay reads at most %d threads per block)",
				filepath.Join(o.out, "schedule.txt"), model.MaxThreads)
		}
	}
	res, err := stress.Run(cfg)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	if res.Violation == nil {
		repro = ""
	}
	sum := stress.Summarize(res)
	if o.out != "" {
		if err := writeStressOut(o.out, res, sum, repro); err != nil {
			return 0, err
		}
	}
	if o.json {
		err = sum.WriteJSON(stdout)
	} else {
		err = stress.WriteReport(stdout, res, repro)
	}
	if err != nil {
		return 0, err
	}
	line := fmt.Sprintf("explore: %s, %s: %d launches, %d calls, %d steps in %.1f ms (%.0f calls/s)",
		sum.Protocol, sum.Verdict, sum.Launches, sum.Calls, sum.Steps, sum.ElapsedMS, sum.CallsPerSec)
	if v := sum.Violation; v != nil {
		line += fmt.Sprintf("; first violation after %.3f ms and %d calls", v.AfterMS, v.CallsBefore)
	}
	fmt.Fprintln(stderr, line)
	switch res.Verdict {
	case sched.Violation:
		return ExitViolation, nil
	case sched.Incomplete:
		return ExitIncomplete, nil
	}
	return ExitOK, nil
}

// writeStressOut writes trace.txt (the report), schedule.txt (the failing
// launch's steps, for -replay) and summary.json.
func writeStressOut(dir string, res *stress.Result, sum stress.Summary, repro string) error {
	write := func(name string, fill func(io.Writer) error) error { return writeFile(dir, name, fill) }
	if err := write("trace.txt", func(w io.Writer) error { return stress.WriteReport(w, res, repro) }); err != nil {
		return err
	}
	if err := write("schedule.txt", func(w io.Writer) error { return check.WriteSchedule(w, res.CheckReport()) }); err != nil {
		return err
	}
	return write("summary.json", sum.WriteJSON)
}

// runCompare prints the comparison table; -duration caps each trial.
func runCompare(o *options, stdout, stderr io.Writer) (int, bool, error) {
	for _, f := range []string{"protocol", "scenario", "threads", "blocks", "calls", "modules", "names", "nest", "syncthreads", "atomicity",
		"strategy", "runs", "max-executions", "timeout", "shard", "replay", "out", "json", "gosched", "max-calls"} {
		if o.set[f] {
			return 0, true, usagef("-compare and -%s both given: -compare runs every strategy and stress on its own cases (the buggy variants on -threads 2 and 64), each trial capped by -duration", f)
		}
	}
	if o.stress.trials < 1 {
		return 0, true, usagef("-trials must be at least 1, got %d", o.stress.trials)
	}
	// The searches take their parameters from the flags, as -strategy
	// would; Compare fills in the rest.
	withProtocol := *o
	withProtocol.protocol = "naive"
	search, err := config(&withProtocol)
	if err != nil {
		return 0, true, err
	}
	if !o.set["workers"] {
		search.Workers = 1 // time the algorithms, not a parallel search's start-up
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := stress.CompareConfig{
		Search: search,
		Cases:  stress.DefaultCases(), Gosched: []float64{0, stress.DefaultGosched},
		Trials: o.stress.trials, Seed: o.seed, Cap: o.stress.duration,
		Stop: func() bool { return ctx.Err() != nil },
	}
	if cfg.Cap == 0 {
		cfg.Cap = 10 * time.Second
	}
	start := time.Now()
	rows, err := stress.Compare(cfg)
	if err != nil {
		return 0, true, usageError{err.Error()}
	}
	if ctx.Err() != nil {
		return ExitIncomplete, true, nil
	}
	fmt.Fprintf(stdout, "Made by `go run ./cmd/explore %s` in %s on %s/%s, %d CPUs; searches on %d goroutine(s).\n\n",
		strings.Join(o.args, " "), time.Since(start).Round(time.Second), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), max(search.Workers, 1))
	if err := stress.WriteComparison(stdout, rows, cfg); err != nil {
		return 0, true, err
	}
	return ExitOK, true, nil
}
