// Package cli is the explore command: flags in, a search run through
// package check, a trace or a JSON summary out, and an exit status. It is a
// package (not main) so tests can run the command in-process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/check/memory"
	"swapcheck/model"
	"swapcheck/sched"
)

// Exit statuses.
const (
	ExitOK         = 0
	ExitViolation  = 1
	ExitUsage      = 2
	ExitIncomplete = 3
)

// options are the parsed flags.
type options struct {
	protocol, scenario, atomicity, strategy, replay, out, shard string
	shape                                                       model.Shape
	runs, maxExecutions                                         int64
	maxDepth, workers, preemptions, depth                       int
	seed                                                        uint64
	timeout                                                     time.Duration
	maxMemory                                                   memory.Size
	list, json, force, table, quiet                             bool
	set                                                         map[string]bool
	args                                                        []string
	stress                                                      stressOptions // -backend goroutines, -compare (stress.go)
}

// usageError is bad input: one line, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Run runs the command with args (without the program name) and returns
// its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr)
	}
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return ExitUsage
	}
	code, err := run(o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return ExitUsage
	}
	return code
}

func parse(args []string, stderr io.Writer) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.protocol, "protocol", "", "the variant to check: "+strings.Join(protocolNames(), ", "))
	fs.BoolVar(&o.list, "list", false, "list the variants, strategies and violation kinds, then exit")
	fs.BoolVar(&o.table, "table", false, "verify every variant on the README's scenarios and print the verdicts as a Markdown table")
	fs.IntVar(&o.shape.Threads, "threads", model.DefaultShape.Threads, "GPU threads per block")
	fs.IntVar(&o.shape.Blocks, "blocks", model.DefaultShape.Blocks, "blocks per launch (run one after another)")
	fs.IntVar(&o.shape.Calls, "calls", model.DefaultShape.Calls, "device-function calls each thread makes")
	fs.IntVar(&o.shape.Modules, "modules", model.DefaultShape.Modules, "device modules the calls go to, round-robin")
	fs.IntVar(&o.shape.Names, "names", model.DefaultShape.Names, "globals per module bound to cuda (cuda, cu, ...)")
	fs.IntVar(&o.shape.Nest, "nest", model.DefaultShape.Nest, "depth of nested device calls inside each call")
	fs.BoolVar(&o.shape.Syncthreads, "syncthreads", false, "call cuda.syncthreads() after each device call")
	fs.StringVar(&o.scenario, "scenario", "", "read the scenario from `FILE` instead (see testdata/scenarios/README.md)")
	fs.StringVar(&o.atomicity, "atomicity", "gil", "what one step is: gil or free-threaded")
	fs.StringVar(&o.strategy, "strategy", check.StrategyAuto, "how to search: "+strings.Join(check.Strategies, ", ")+" (-list says what each does)")
	fs.IntVar(&o.preemptions, "preemptions", 3, "the most preemptions -strategy bounded tries")
	fs.IntVar(&o.depth, "depth", 3, "the bug depth -strategy pct aims at")
	fs.Int64Var(&o.runs, "runs", 1000, "executions for -strategy random and -strategy pct")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "goroutines for an exhaustive search (verdicts and counts do not depend on it; with more than one, preemption statistics can vary by run)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for -strategy random and -strategy pct, for -backend goroutines and for -compare's trials")
	fs.Int64Var(&o.maxExecutions, "max-executions", 0, "stop after this many executions (0: no limit); the verdict is then incomplete")
	fs.IntVar(&o.maxDepth, "max-depth", 0, fmt.Sprintf("per-execution step budget (0: %d); reaching it makes the verdict incomplete", sched.DefaultMaxDepth))
	fs.DurationVar(&o.timeout, "timeout", 0, "stop the search after this long (0: none); the verdict is then incomplete")
	o.maxMemory = memory.Size(memory.Default())
	fs.Var(&o.maxMemory, "max-memory", fmt.Sprintf("stop the search once the process holds this much memory, `SIZE` such as 500MiB, 2GiB or 1GB (0: no bound; the default is %.0f%% of this machine's memory); the verdict is then incomplete", 100*memory.DefaultShare))
	fs.StringVar(&o.replay, "replay", "", "replay the schedule `FILE` written by -out (its protocol, atomicity and scenario)")
	fs.StringVar(&o.out, "out", "", "write trace.txt, schedule.txt and summary.json into `DIR`")
	fs.BoolVar(&o.force, "force", false, "with -out, overwrite files already there")
	fs.StringVar(&o.shard, "shard", "", "run part `i/n` (0 <= i < n) of an exhaustive search; combine the parts with explore merge (see docs/sharding.md)")
	fs.BoolVar(&o.json, "json", false, "print the JSON summary on stdout instead of the trace")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress report on stderr")
	registerStressFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintf(stderr, "usage: explore -protocol NAME [flags]\n\n")
			fs.PrintDefaults()
			return nil, err
		}
		return nil, usageError{strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])}
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (all options are flags: -h lists them)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		o.set[f.Name] = true
		switch {
		case f.Name == "out" || f.Name == "json" || f.Name == "force" || f.Name == "quiet":
		case f.Value.String() == "true":
			o.args = append(o.args, "-"+f.Name)
		default:
			o.args = append(o.args, "-"+f.Name, shellQuote(f.Value.String()))
		}
	})
	return o, nil
}

func protocolNames() []string {
	var names []string
	for _, p := range check.Protocols() {
		names = append(names, p.Name)
	}
	return names
}

func run(o *options, stdout, stderr io.Writer) (int, error) {
	if o.list {
		return ExitOK, list(stdout)
	}
	if o.table {
		return ExitOK, check.WriteVerdictTable(stdout)
	}
	if code, handled, err := runBackend(o, stdout, stderr); handled {
		return code, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	interrupted := func() bool { return ctx.Err() != nil }

	// Check all the input before touching -out or starting a search.
	var (
		cfg      check.Config
		schedule *check.Schedule
		err      error
	)
	if o.replay != "" {
		schedule, err = readReplay(o)
	} else {
		cfg, err = config(o)
	}
	if err != nil {
		return 0, err
	}
	repro := "go run ./cmd/explore " + strings.Join(o.args, " ")
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
		repro = "go run ./cmd/explore -replay " + filepath.Join(o.out, "schedule.txt")
	}
	var rep *check.Report
	if schedule != nil {
		if rep, err = check.Replay(schedule); err != nil {
			return 0, usagef("replay %s: %v", o.replay, err)
		}
		repro = "go run ./cmd/explore -replay " + o.replay
	} else {
		cfg.Stop, cfg.StopReason = interrupted, "interrupted"
		var total int64
		if cfg.Strategy == check.StrategyRandom {
			total = cfg.Runs
		}
		if cfg.Memory = memory.New(int64(o.maxMemory)); o.maxMemory > 0 {
			// the collector works harder near it; tests run this in-process
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(o.maxMemory)))
		}
		prog := newProgress(stderr, o.quiet, total, int64(o.maxMemory))
		if prog != nil {
			cfg.Progress = prog.update
		}
		rep, err = check.Explore(cfg)
		prog.done()
		if err != nil {
			return 0, usageError{err.Error()}
		}
	}
	sum := check.Summarize(rep)
	if o.out != "" {
		if err := writeOut(o.out, rep, sum, repro); err != nil {
			return 0, err
		}
	}
	if o.json {
		if err := sum.WriteJSON(stdout); err != nil {
			return 0, err
		}
	} else if err := human(stdout, rep, repro); err != nil {
		return 0, err
	}
	for _, phase := range rep.Plan {
		fmt.Fprintf(stderr, "explore: %s: %s\n", rep.Config.Strategy, phase)
	}
	fmt.Fprintf(stderr, "explore: %s, %s: %d executions, %d states, %d steps in %.1f ms (%.2fM steps/s)\n",
		sum.Protocol, sum.Verdict, sum.Executions, sum.States, sum.Steps, sum.ElapsedMS, sum.StepsPerSec/1e6)
	if line := resources(sum); line != "" {
		fmt.Fprintf(stderr, "explore: %s\n", line)
	}
	if n := rep.Interleavings; n > 0 {
		fmt.Fprintf(stderr, "explore: dpor's reduction: %d executions, of %s interleavings in all (counted over the reachable states): %s times fewer\n",
			rep.Result.Stats.Executions, count(n), count(n/float64(rep.Result.Stats.Executions)))
	}
	if line := pctLine(rep); line != "" && (o.json || rep.Result.Verdict == sched.Violation) {
		// stdout holds the JSON summary or the trace (for a bug
		// report), so the guarantee goes with the counts
		fmt.Fprintf(stderr, "explore: %s\n", line)
	}
	switch rep.Result.Verdict {
	case sched.Violation:
		return ExitViolation, nil
	case sched.Incomplete:
		return ExitIncomplete, nil
	}
	return ExitOK, nil
}

// target resolves what a run checks: the protocol, the atomicity model
// and the scenario (from -scenario, or built from the shape flags with at
// most maxThreads threads per block).
func target(o *options, maxThreads int) (*model.Protocol, model.Atomicity, *model.Scenario, error) {
	if o.protocol == "" {
		return nil, 0, nil, usagef("missing -protocol (one of %s; -list describes them)", strings.Join(protocolNames(), ", "))
	}
	p, err := check.Lookup(o.protocol)
	if err != nil {
		return nil, 0, nil, usageError{err.Error()}
	}
	a, err := model.ParseAtomicity(o.atomicity)
	if err != nil {
		return nil, 0, nil, usageError{err.Error()}
	}
	if o.scenario != "" {
		for _, f := range []string{"threads", "blocks", "calls", "modules", "names", "nest", "syncthreads"} {
			if o.set[f] {
				return nil, 0, nil, usagef("-scenario and -%s both given: the scenario file says it all", f)
			}
		}
		sc, err := readScenario(o.scenario)
		return p, a, sc, err
	}
	sc, err := o.shape.BuildUpTo(maxThreads)
	if err != nil {
		return nil, 0, nil, usageError{err.Error()}
	}
	return p, a, sc, nil
}

// config builds the search from the flags.
func config(o *options) (check.Config, error) {
	var cfg check.Config
	p, a, sc, err := target(o, model.MaxThreads)
	if err != nil {
		return cfg, err
	}
	switch {
	case o.runs < 1:
		return cfg, usagef("-runs must be at least 1, got %d", o.runs)
	case o.maxExecutions < 0:
		return cfg, usagef("-max-executions must be 0 or more, got %d", o.maxExecutions)
	case o.workers < 1 || o.workers > 1024:
		return cfg, usagef("-workers must be 1..1024, got %d", o.workers)
	case o.maxDepth < 0:
		return cfg, usagef("-max-depth must be 0 or more, got %d", o.maxDepth)
	case o.timeout < 0:
		return cfg, usagef("-timeout must be 0 or more, got %s", o.timeout)
	}
	var shard, shards int
	if o.shard != "" {
		if shard, shards, err = check.ParseShard(o.shard); err != nil {
			return cfg, usagef("-shard: %v", err)
		}
	}
	return check.Config{
		Shard: shard, Shards: shards,
		Protocol: p, Scenario: sc, Atomicity: a, Strategy: o.strategy,
		Runs: o.runs, Seed: o.seed, MaxExecutions: o.maxExecutions, MaxDepth: o.maxDepth, Timeout: o.timeout,
		Workers: o.workers, Preemptions: o.preemptions, Depth: o.depth,
	}, nil
}

func readScenario(path string) (*model.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("scenario: %v", unwrapPath(err))
	}
	defer f.Close()
	sc, err := model.Parse(f)
	if err != nil {
		return nil, usagef("scenario %s: %v", path, err)
	}
	return sc, nil
}

func readReplay(o *options) (*check.Schedule, error) {
	for _, f := range []string{"protocol", "scenario", "threads", "blocks", "calls", "modules", "names", "nest", "syncthreads", "atomicity", "strategy", "runs", "seed"} {
		if o.set[f] {
			return nil, usagef("-replay and -%s both given: the schedule file names its protocol, atomicity and scenario", f)
		}
	}
	f, err := os.Open(o.replay)
	if err != nil {
		return nil, usagef("replay: %v", unwrapPath(err))
	}
	defer f.Close()
	s, err := check.ReadSchedule(f)
	if err != nil {
		return nil, usagef("replay %s: %v", o.replay, err)
	}
	if len(s.Steps) == 0 {
		return nil, usagef("replay %s: the schedule has no steps (its run found no violation), so there is nothing to replay", o.replay)
	}
	return s, nil
}

// unwrapPath keeps "open x: no such file or directory" on one line.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// outFiles are what -out writes.
var outFiles = []string{"trace.txt", "schedule.txt", "summary.json"}

// prepareOut makes DIR and refuses to overwrite earlier results unless
// forced.
func prepareOut(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("-out: %v", unwrapPath(err))
	}
	if force {
		return nil
	}
	for _, name := range outFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return usagef("-out %s already holds %s; pass -force to overwrite, or pick another directory", dir, name)
		}
	}
	return nil
}

func writeOut(dir string, rep *check.Report, sum check.Summary, repro string) error {
	write := func(name string, fill func(io.Writer) error) error { return writeFile(dir, name, fill) }
	if err := write("trace.txt", func(w io.Writer) error { return check.WriteTrace(w, rep, repro) }); err != nil {
		return err
	}
	if err := write("schedule.txt", func(w io.Writer) error { return check.WriteSchedule(w, rep) }); err != nil {
		return err
	}
	return write("summary.json", sum.WriteJSON)
}

// writeFile creates dir/name and fills it.
func writeFile(dir, name string, fill func(io.Writer) error) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return unwrapPath(err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// resources says, for a person, what the summary counts besides states
// and steps: the preemptions per execution, a stateful search's visited
// set (states stored, steps that matched one, its memory) and the
// process's peak resident memory ("" when it has none of them).
func resources(sum check.Summary) string {
	var parts []string
	if sum.Preemptions != nil {
		parts = append(parts, "preemptions per execution: "+sum.Preemptions.String())
	}
	if sum.MemoryBytes > 0 { // a stateful search
		parts = append(parts, fmt.Sprintf("visited set: %d states stored, %d steps matched one, %.1f MiB", sum.States, sum.Matched, float64(sum.MemoryBytes)/(1<<20)))
	}
	if sum.PeakRSSBytes > 0 {
		parts = append(parts, fmt.Sprintf("peak RSS %.1f MiB", float64(sum.PeakRSSBytes)/(1<<20)))
	}
	return strings.Join(parts, "; ")
}

// human prints the verdict for a person: the trace of a violation, or a
// line saying what was covered.
func human(out io.Writer, rep *check.Report, repro string) error {
	res := rep.Result
	var b strings.Builder
	name, strat := rep.Config.Protocol.Name+" ("+rep.Config.Atomicity.String()+")", rep.Config.Strategy
	switch res.Verdict {
	case sched.Violation:
		return check.WriteTrace(out, rep, repro)
	case sched.Verified:
		if strat == check.StrategyDPOR { // stateless: it need not visit every state
			fmt.Fprintf(&b, "%s: verified: the dpor search ran an execution from every class of interleavings that differ only in the order of independent steps: %d executions, %d steps\n",
				name, res.Stats.Executions, res.Stats.Steps)
			break
		}
		fmt.Fprintf(&b, "%s: verified: the %s search covered every reachable state: %d states, %d executions, %d steps\n",
			name, strat, res.Stats.States, res.Stats.Executions, res.Stats.Steps)
	case sched.NoViolationFound:
		fmt.Fprintf(&b, "%s: no violation found by %s (%d executions, %d steps", name, strat, res.Stats.Executions, res.Stats.Steps)
		if res.Cut != "" {
			fmt.Fprintf(&b, "; covered: %s", res.Cut)
		}
		b.WriteString("); this proves nothing\n")
		if line := pctLine(rep); line != "" {
			b.WriteString(line + "\n")
		}
	default:
		fmt.Fprintf(&b, "%s: incomplete: the %s search stopped (%s) after %d states, %d executions, %d steps, without a violation; nothing is proved\n",
			name, strat, res.Cut, res.Stats.States, res.Stats.Executions, res.Stats.Steps)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// count renders a count that may be huge: in full below a million, else
// with three significant digits.
func count(n float64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.3g", n)
}

// pctLine says, of a pct search, with what probability each run finds a
// bug of the depth it aims at in this scenario ("" for other strategies).
func pctLine(rep *check.Report) string {
	g := check.PCTGuarantee(rep)
	if g <= 0 {
		return ""
	}
	return fmt.Sprintf("pct: each run finds a bug of depth %d with probability at least %.3g (1/(n*k^(d-1)), n=%d threads, k=%d steps)",
		rep.Config.Depth, g, rep.Program.NumThreads(), check.PCTLength(rep))
}

func list(out io.Writer) error {
	var b strings.Builder
	b.WriteString("protocols:\n")
	for _, p := range check.Protocols() {
		fmt.Fprintf(&b, "  %-22s %s (testdata/python/%s)\n", p.Name, p.Summary, p.Source)
	}
	b.WriteString("strategies:\n")
	for _, name := range check.Strategies {
		fmt.Fprintf(&b, "  %-22s %s\n", name, check.StrategyDoc[name])
	}
	b.WriteString("atomicity:\n  gil\n  free-threaded\n")
	b.WriteString("violation kinds:\n")
	for _, k := range check.Kinds {
		fmt.Fprintf(&b, "  %s\n", k)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
