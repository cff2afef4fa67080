package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/scenario"
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

// stressConfig builds a stress run from the flags.
func stressConfig(o *options) (stress.Config, error) {
	var cfg stress.Config
	p, a, sc, err := target(o, scenario.MaxStressThreads)
	if err != nil {
		return cfg, err
	}
	if sc.Faults != 0 {
		return cfg, usagef("-backend goroutines injects no faults: the scenario's faults %s are for the search", sc.Faults)
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
	ctx, stop := interruptContext()
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
		if cfg.Scenario.Threads > scenario.MaxThreads {
			repro = fmt.Sprintf("the simulator replays %s in-process (explore -replay reads at most %d threads per block)",
				filepath.Join(o.out, "schedule.txt"), scenario.MaxThreads)
		}
	}
	res, err := stress.Run(cfg)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	if res.Verdict == sched.Incomplete && res.Cut == cfg.StopReason {
		res.Cut = stopReason(ctx)
	}
	if res.Violation == nil {
		repro = ""
	}
	sum := stress.Summarize(res)
	var outErr error // said after the verdict, which it must not hide
	if o.out != "" {
		outErr = writeStressOut(o.out, res, sum, repro)
	}
	if o.json {
		err = sum.WriteJSON(stdout)
	} else {
		err = stress.WriteReport(stdout, res, repro)
	}
	if err != nil {
		return 0, err
	}
	line := fmt.Sprintf("explore: %s, %s: %s, %s, %s in %.1f ms (%.0f calls/s)",
		sum.Protocol, sum.Verdict, check.Count(sum.Launches, "launch"), check.Count(sum.Calls, "call"), check.Count(sum.Steps, "step"), sum.ElapsedMS, sum.CallsPerSec)
	if v := sum.Violation; v != nil {
		line += fmt.Sprintf("; first violation after %.3f ms and %d calls", v.AfterMS, v.CallsBefore)
	}
	fmt.Fprintln(stderr, line)
	return exitStatus(res.Verdict, outErr, stderr), nil
}

// writeStressOut writes trace.txt (the report), schedule.txt (the failing
// launch's steps, for -replay) and summary.json.
func writeStressOut(dir string, res *stress.Result, sum stress.Summary, repro string) error {
	st, err := stageOut(dir)
	if err != nil {
		return err
	}
	defer st.abort()
	if err := st.write("trace.txt", func(w io.Writer) error { return stress.WriteReport(w, res, repro) }); err != nil {
		return err
	}
	if err := st.write("schedule.txt", func(w io.Writer) error { return check.WriteSchedule(w, res.CheckReport()) }); err != nil {
		return err
	}
	if err := st.write("summary.json", sum.WriteJSON); err != nil {
		return err
	}
	return st.commit()
}

// runCompare prints the comparison table; -duration caps each trial. Each
// cell done is reported on stderr (unless -quiet); a signal stops it, and
// the table so far is printed, marked incomplete (exit 3).
func runCompare(o *options, stdout, stderr io.Writer) (int, error) {
	if o.stress.trials < 1 {
		return 0, usagef("-trials must be at least 1, got %d", o.stress.trials)
	}
	// The searches take their parameters from the flags, as -strategy
	// would; Compare fills in the rest.
	withProtocol := *o
	withProtocol.protocol = "naive"
	search, err := config(&withProtocol)
	if err != nil {
		return 0, err
	}
	if !o.set["workers"] {
		search.Workers = 1 // time the algorithms, not a parallel search's start-up
	}
	ctx, stop := interruptContext()
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
	if !o.quiet {
		cfg.Progress = func(done, total int, c stress.Case, cell stress.Cell) {
			fmt.Fprintf(stderr, "explore: compare: %d/%d cells, %s elapsed: %s %s %s, %s: %s\n", done, total, time.Since(start).Round(time.Second),
				c.Protocol.Name, c.Atomicity, c.Label, cell.Method, cell.Render(cfg.Cap))
		}
	}
	rows, err := stress.Compare(cfg)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	fmt.Fprintf(stdout, "Made by `go run ./cmd/explore %s` in %s on %s/%s, %d CPUs; searches on %d goroutine(s).\n\n",
		strings.Join(o.args, " "), time.Since(start).Round(time.Second), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), max(search.Workers, 1))
	code := ExitOK
	if ctx.Err() != nil {
		code = ExitIncomplete
		ran := 0
		for _, r := range rows {
			for _, c := range r.Cells {
				if c.Trials > 0 {
					ran++
				}
			}
		}
		fmt.Fprintf(stdout, "**Incomplete** (%s): %d of %d cases begun, %d cells measured; a cell marked – did not run.\n\n",
			stopReason(ctx), len(rows), len(cfg.Cases), ran)
	}
	if err := stress.WriteComparison(stdout, rows, cfg); err != nil {
		return 0, err
	}
	return code, nil
}
