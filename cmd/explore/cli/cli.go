// Package cli is the explore command: flags in, a search run through
// package check, a trace or a JSON summary out, and an exit status. It is a
// package (not main) so tests can run the command in-process.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/check/memory"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
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
	emitPython, emitTest                                        string // -emit-python, -emit-test (python.go)
	report                                                      string // -report (report.go)
	shape                                                       scenario.Shape
	faults                                                      string // -faults (faults.go)
	fix, atomics                                                string // -fix, -atomics (memory.go)
	maxFaults                                                   int    // -max-faults
	runs, maxExecutions                                         int64
	maxDepth, workers, preemptions, depth                       int
	seed                                                        uint64
	timeout                                                     time.Duration
	maxMemory                                                   memory.Size
	list, json, force, table, quiet, version                    bool
	shrink                                                      bool        // -shrink (shrink.go)
	corpus                                                      string      // -corpus (corpus.go)
	afterFailure                                                bool        // -after-failure (harm.go)
	source                                                      string      // -source (source.go)
	threadContext                                               bool        // -thread-context (source.go)
	allThreads                                                  bool        // -threads all (everyn.go)
	want                                                        string      // -want (source.go)
	flagArgs                                                    []flagWords // the flags given, as the replay command spells them
	set                                                         map[string]bool
	given                                                       []string // the flags given, by name
	mode                                                        *mode    // what they ask for (modes.go)
	args                                                        []string
	stress                                                      stressOptions       // -backend goroutines, -compare (stress.go)
	rr                                                          replayRandomOptions // -replay-random (replayrandom.go)
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
	o, err := parse(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "explore: %s\n", oneLine(err.Error()))
		return ExitUsage
	}
	code, err := run(o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %s\n", oneLine(err.Error()))
		return ExitUsage
	}
	return code
}

// oneLine makes a message safe to print as one line: a control character
// (a newline or an escape sequence from a file name or a flag) is shown
// escaped, as strconv.Quote would.
func oneLine(msg string) string {
	var b strings.Builder
	for _, r := range msg {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// parse reads the flags; -h prints the usage on stdout.
func parse(args []string, stdout io.Writer) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	defineFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return nil, err
		}
		return nil, usageError{strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])}
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (all options are flags: -h lists them)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		o.set[f.Name] = true
		o.given = append(o.given, f.Name)
		var words []string
		switch {
		case f.Name == "out" || f.Name == "json" || f.Name == "force" || f.Name == "quiet" || f.Name == "emit-python":
			// where the results go, not what is searched: the replay line
			// reruns the search, and must not fail on a file it wrote
		case f.Value.String() == "true":
			words = []string{"-" + f.Name}
		case isBool(f) && f.Value.String() == "false":
			words = []string{"-" + f.Name + "=false"} // "-shrink false" would end the flags
		default:
			words = []string{"-" + f.Name, shellQuote(f.Value.String())}
		}
		o.args = append(o.args, words...)
		if words != nil {
			o.flagArgs = append(o.flagArgs, flagWords{f.Name, words})
		}
	})
	if b := o.stress.backend; b != backendModel && b != backendGoroutines {
		return nil, usagef("unknown -backend %q (want %s or %s)", b, backendModel, backendGoroutines)
	}
	m, err := pickMode(o)
	if err != nil {
		return nil, err
	}
	o.mode = m
	return o, nil
}

func protocolNames() []string {
	var names []string
	for _, p := range check.Protocols() {
		names = append(names, p.Name)
	}
	return names
}

// atomicityNames are the names -atomicity takes, in registry order.
func atomicityNames() []string {
	var names []string
	for _, a := range model.Atomicities() {
		names = append(names, a.String())
	}
	return names
}

func run(o *options, stdout, stderr io.Writer) (int, error) {
	if o.allThreads && o.mode.flag != "" {
		return 0, usagef("-threads all proves a variant for every thread count, a search of its own; %s takes a number of threads", o.mode.picks)
	}
	switch o.mode.flag {
	case "list":
		return ExitOK, list(stdout)
	case "table":
		return ExitOK, check.WriteVerdictTable(stdout)
	case "version":
		_, err := fmt.Fprintf(stdout, "explore %s (schedule.txt, trace.json and summary.json format %d)\n", check.Version, check.FormatVersion)
		return ExitOK, err
	case "compare":
		return runCompare(o, stdout, stderr)
	case "backend":
		return runStress(o, stdout, stderr)
	case "replay-random":
		return runReplayRandom(o, stdout, stderr)
	case "source":
		return runSource(o, stdout, stderr)
	}
	if o.allThreads {
		return runEveryN(o, stdout, stderr)
	}
	if o.shape.Threads > scenario.MaxThreads {
		return 0, usagef("-threads %d: the searches take at most %d threads per block (CUDA's most)", o.shape.Threads, scenario.MaxThreads)
	}
	done, code, left, err := byProof(o, stdout, stderr)
	if done || err != nil {
		return code, err
	}
	o.timeout = left
	ctx, stop := interruptContext()
	defer stop()
	interrupted := func() bool { return ctx.Err() != nil }

	// Check all the input before touching -out or starting a search.
	var (
		cfg      check.Config
		schedule *check.Schedule
	)
	if o.replay != "" {
		var data []byte
		if data, err = readReplayFile(o); err != nil {
			return 0, err
		}
		if isSourceSchedule(data) {
			return runSourceReplay(o, data, stdout, stderr)
		}
		schedule, err = parseReplay(o, data)
	} else {
		cfg, err = config(o)
	}
	if err != nil {
		return 0, err
	}
	if err := checkReport(o); err != nil {
		return 0, err
	}
	repro := "go run ./cmd/explore " + strings.Join(o.args, " ")
	if o.out != "" {
		if err := prepareOut(o.out, o.force); err != nil {
			return 0, err
		}
		repro = "go run ./cmd/explore -replay " + filepath.Join(o.out, "schedule.txt")
	}
	if err := checkEmitPath(o); err != nil {
		return 0, err
	}
	var rep *check.Report
	if schedule != nil {
		if rep, err = check.Replay(schedule); err != nil {
			return 0, usagef("replay %s: %v", o.replay, err)
		}
		if line := schedule.Differs(rep); line != "" {
			fmt.Fprintf(stderr, "explore: %s\n", oneLine(line))
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
		repro = shrunkRepro(o, rep, repro)
		if res := &rep.Result; res.Verdict == sched.Incomplete && res.Cut == cfg.StopReason {
			res.Cut = stopReason(ctx) // which signal
		}
	}
	sum := check.Summarize(rep)
	var outErr error // said after the verdict, which it must not hide
	if o.out != "" {
		outErr = writeOut(o.out, rep, sum, repro, reportRepro(o, rep), stderr)
	}
	if err := emitPython(o, rep); err != nil {
		return 0, err
	}
	if err := emitTest(o, rep); err != nil {
		return 0, err
	}
	if o.json {
		if err := sum.WriteJSON(stdout); err != nil {
			return 0, err
		}
	} else if o.report != "" {
		if err := writeReport(stdout, o, rep, repro); err != nil {
			return 0, err
		}
	} else if err := human(stdout, rep, repro); err != nil {
		return 0, err
	}
	for _, phase := range rep.Plan {
		fmt.Fprintf(stderr, "explore: %s: %s\n", rep.Config.Strategy, phase)
	}
	corpusLines(stderr, rep, cfg.Corpus)
	if line := shrunkLine(o, rep); line != "" {
		fmt.Fprintf(stderr, "explore: %s\n", line)
	}
	verdict := sum.Verdict
	if sum.Shard != "" && rep.Result.Verdict == sched.Verified {
		verdict = "part " + sum.Shard + " searched, no violation in its share (explore merge gives the verdict)"
	}
	fmt.Fprintf(stderr, "explore: %s, %s: %s, %s, %s in %.1f ms (%.2fM steps/s)\n",
		sum.Protocol, verdict, check.Count(sum.Executions, "execution"), check.Count(sum.States, "state"), check.Count(sum.Steps, "step"), sum.ElapsedMS, sum.StepsPerSec/1e6)
	if sum.Faults != "" && sum.States > 0 {
		// a stateful search stores each end state once: an execution
		// with a fault whose end state one without reached first is not
		// counted
		fmt.Fprintf(stderr, "explore: faults %s (at most %d per execution): %s stored first reached through one\n",
			sum.Faults, rep.Config.Scenario.FaultBound(), check.Count(sum.FaultedExecutions, "end state"))
	} else if sum.Faults != "" {
		fmt.Fprintf(stderr, "explore: faults %s: %s ended with one (at most %d per execution)\n",
			sum.Faults, check.Count(sum.FaultedExecutions, "execution"), rep.Config.Scenario.FaultBound())
	}
	if line := resources(sum); line != "" {
		fmt.Fprintf(stderr, "explore: %s\n", line)
	}
	if n := rep.Interleavings; n > 0 {
		fmt.Fprintf(stderr, "explore: dpor's reduction: %s, of %s in all (counted over the reachable states): %s times fewer\n",
			check.Count(rep.Result.Stats.Executions, "execution"), plural(count(n), "interleaving"), count(n/float64(rep.Result.Stats.Executions)))
	}
	if line := pctLine(rep); line != "" && (o.json || rep.Result.Verdict == sched.Violation) {
		// stdout holds the JSON summary or the trace (for a bug
		// report), so the guarantee goes with the counts
		fmt.Fprintf(stderr, "explore: %s\n", line)
	}
	return exitStatus(rep.Result.Verdict, outErr, stderr), nil
}

// exitStatus is the exit status of a run whose verdict is v; outErr, when
// set, is why its -out files could not be written, said on stderr: a
// violation still exits 1 (the counterexample is on stdout, and real),
// any other verdict 2.
func exitStatus(v sched.Verdict, outErr error, stderr io.Writer) int {
	if outErr != nil {
		fmt.Fprintf(stderr, "explore: %s\n", oneLine(outErr.Error()))
		if v != sched.Violation {
			return ExitUsage
		}
	}
	switch v {
	case sched.Violation:
		return ExitViolation
	case sched.Incomplete:
		return ExitIncomplete
	}
	return ExitOK
}

// target resolves what a run checks: the protocol, the atomicity model
// and the scenario (from -scenario, or built from the shape flags with at
// most maxThreads threads per block).
func target(o *options, maxThreads int) (*model.Protocol, model.Atomicity, *scenario.Scenario, error) {
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
		for _, f := range shapeFlags {
			if o.set[f] {
				return nil, 0, nil, usagef("-scenario and -%s both given: the scenario file says it all", f)
			}
		}
		sc, err := readScenario(o.scenario, maxThreads)
		if err == nil {
			err = applyFix(o, sc)
		}
		if err == nil {
			err = applyFaults(o, sc, maxThreads)
		}
		return p, a, sc, err
	}
	if o.shape.Hosts < 1 { // Build reads 0 as one host; the flag says 1
		return nil, 0, nil, usagef("hosts must be 1..%d, got %d", scenario.MaxHosts, o.shape.Hosts)
	}
	sc := &scenario.Scenario{}
	if err := applyFaults(o, sc, 0); err != nil {
		return nil, 0, nil, err
	}
	o.shape.Faults, o.shape.MaxFaults = sc.Faults, sc.MaxFaults
	if err := applyFix(o, sc); err != nil {
		return nil, 0, nil, err
	}
	o.shape.Fixes = sc.Fixes
	if err := atomicsShape(o); err != nil {
		return nil, 0, nil, err
	}
	sc, err = o.shape.BuildUpTo(maxThreads)
	if err != nil {
		return nil, 0, nil, usageError{err.Error()}
	}
	return p, a, sc, nil
}

// config builds the search from the flags.
func config(o *options) (check.Config, error) {
	var cfg check.Config
	p, a, sc, err := target(o, scenario.MaxThreads)
	if err != nil {
		return cfg, err
	}
	if err := checkFlagValues(o, modeSearch); err != nil {
		return cfg, err
	}
	if o.mode == nil || o.mode.flag == "" { // the search (-compare sets its own)
		if err := checkStrategyFlags(o); err != nil {
			return cfg, err
		}
	}
	var shard, shards int
	strategy := o.strategy
	if o.shard != "" {
		if shard, shards, err = check.ParseShard(o.shard); err != nil {
			return cfg, usagef("-shard: %v", err)
		}
		if strategy == check.StrategyAuto {
			// auto's first phase is states, the search a shard splits;
			// its second (the fewest preemptions) needs the whole space
			strategy = check.StrategyStates
		}
	}
	var shape *scenario.Shape
	if o.scenario == "" {
		shape = &o.shape
	}
	corpus, err := readCorpus(o)
	if err != nil {
		return cfg, err
	}
	return check.Config{Corpus: corpus,
		Shard: shard, Shards: shards, Shrink: o.shrink && shards == 0, Shape: shape,
		Protocol: p, Scenario: sc, Atomicity: a, Strategy: strategy, Scope: scope(o),
		Runs: o.runs, Seed: o.seed, MaxExecutions: o.maxExecutions, MaxDepth: o.maxDepth, Timeout: o.timeout,
		Workers: o.workers, Preemptions: o.preemptions, Depth: o.depth,
	}, nil
}

func readScenario(path string, maxThreads int) (*scenario.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("scenario: %v", unwrapPath(err))
	}
	defer f.Close()
	sc, err := scenario.ParseUpTo(f, maxThreads)
	if err != nil {
		return nil, usagef("scenario %s: %v", path, err)
	}
	return sc, nil
}

// readReplayFile reads -replay's file, bounded by maxReplayFile.
func readReplayFile(o *options) ([]byte, error) {
	f, err := os.Open(o.replay)
	if err != nil {
		return nil, usagef("replay: %v", unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReplayFile+1))
	if err != nil {
		return nil, usagef("replay %s: %v", o.replay, unwrapPath(err))
	}
	if len(data) > maxReplayFile {
		return nil, usagef("replay %s: longer than %d bytes", o.replay, maxReplayFile)
	}
	return data, nil
}

// parseReplay parses what readReplayFile read: a trace.json or a
// schedule.txt of a search.
func parseReplay(o *options, data []byte) (*check.Schedule, error) {
	s, err := check.ReadReplay(data)
	if err != nil {
		return nil, usagef("replay %s: %v", o.replay, err)
	}
	if len(s.Steps) == 0 {
		return nil, usagef("replay %s: the schedule has no steps (its run found no violation), so there is nothing to replay", o.replay)
	}
	return s, nil
}

// maxReplayFile bounds what -replay reads: a trace.json of the longest
// counterexample a search prints fits many times over.
const maxReplayFile = 1 << 28

// unwrapPath keeps "open x: no such file or directory" on one line.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// writeOut writes -out's files (and, for a violation, its replay.py) in
// dir, all or none; stderr hears why a replay.py could not be made.
// repro is the command the trace files name, reportCmd the one the bug
// report names (reportRepro: no path of this machine).
func writeOut(dir string, rep *check.Report, sum check.Summary, repro, reportCmd string, stderr io.Writer) error {
	st, err := stageOut(dir)
	if err != nil {
		return err
	}
	defer st.abort()
	if err := writeStaged(st, rep, sum, repro, reportCmd, stderr); err != nil {
		return fmt.Errorf("-out %s: %v", dir, err)
	}
	return st.commit()
}

// writeStaged writes a run's files into st.
func writeStaged(st *stagedOut, rep *check.Report, sum check.Summary, repro, reportCmd string, stderr io.Writer) error {
	write := st.write
	trace, err := check.NewTrace(rep, repro)
	if err != nil {
		return err
	}
	if err := write("trace.txt", trace.WriteText); err != nil {
		return err
	}
	if err := write("trace.json", trace.WriteJSON); err != nil {
		return err
	}
	if err := write(htmlFile, func(w io.Writer) error { return bugreport.WriteHTML(w, rep, repro) }); err != nil {
		return err
	}
	if rep.Result.Verdict == sched.Violation {
		if err := write(reportFile, func(w io.Writer) error { return bugreport.Write(w, rep, reportCmd) }); err != nil {
			return err
		}
	}
	if err := write("schedule.txt", func(w io.Writer) error { return check.WriteSchedule(w, rep) }); err != nil {
		return err
	}
	if err := write("summary.json", sum.WriteJSON); err != nil {
		return err
	}
	return writeReplayScript(st, rep, stderr)
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
		parts = append(parts, "preemptions per execution searched (not the trace's, which the trace counts): "+sum.Preemptions.String())
	}
	if sum.MemoryBytes > 0 { // a stateful search
		parts = append(parts, fmt.Sprintf("visited set: %d states stored, %d steps matched one, %.1f MiB", sum.States, sum.Matched, float64(sum.MemoryBytes)/(1<<20)))
	}
	if sum.PeakRSSBytes > 0 {
		parts = append(parts, fmt.Sprintf("peak RSS %.1f MiB", float64(sum.PeakRSSBytes)/(1<<20)))
	}
	return strings.Join(parts, "; ")
}

// world says which world a verdict covers: its bounds (hosts, launches,
// blocks, threads), its faults and the atomicity mode; the scenario's
// code is the one the command gave.
func world(sc *scenario.Scenario, a model.Atomicity) string {
	faults := "no faults"
	if sc.Faults != 0 {
		faults = fmt.Sprintf("faults %s, at most %d per execution", sc.Faults, sc.FaultBound())
	}
	launches := "1 launch"
	if sc.Launches > 1 {
		launches = fmt.Sprintf("%d launches", sc.Launches)
	}
	out := fmt.Sprintf("%s, each making %s of %s of %s; %s; atomicity %s",
		check.Count(sc.NumHosts(), "host"), launches, check.Count(sc.Blocks, "block"),
		check.Count(sc.Threads, "GPU thread"), faults, a)
	if sc.HasMemory() {
		fixes := "unfixed"
		if sc.Fixes != 0 {
			fixes = "fixes " + sc.Fixes.String()
		}
		out += fmt.Sprintf("; the simulator's kernelapi.py %s; lost-update checked as sequential consistency per element (each thread's atomics in its order; their order in real time is not kept)", fixes)
	}
	return out
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
		if c := rep.Config; c.Shards > 1 {
			// a part covered its share of the roots; only every part
			// together covers the reachable states
			fmt.Fprintf(&b, "%s: part %d/%d of the %s search: no violation in its share (%s); a part proves nothing alone: explore merge of all %d parts' summary.json gives the verdict\n",
				name, c.Shard, c.Shards, strat, statsText(res.Stats, true), c.Shards)
			break
		}
		if strat == check.StrategyDPOR { // stateless: it need not visit every state
			fmt.Fprintf(&b, "%s: verified: the dpor search ran an execution from every class of interleavings that differ only in the order of independent steps: %s\n",
				name, statsText(res.Stats, false))
			break
		}
		fmt.Fprintf(&b, "%s: verified: the %s search covered every reachable state: %s\n",
			name, strat, statsText(res.Stats, true))
		fmt.Fprintf(&b, "%s: the world verified: %s\n", name, world(rep.Config.Scenario, rep.Config.Atomicity))
	case sched.NoViolationFound:
		fmt.Fprintf(&b, "%s: no violation found by %s (%s", name, strat, statsText(res.Stats, false))
		if res.Cut != "" {
			fmt.Fprintf(&b, "; covered: %s", res.Cut)
		}
		b.WriteString("); this proves nothing\n")
		if line := pctLine(rep); line != "" {
			b.WriteString(line + "\n")
		}
	default:
		if c := rep.Config; c.Shards > 1 {
			strat = fmt.Sprintf("%s search's part %d/%d", strat, c.Shard, c.Shards)
		} else {
			strat += " search"
		}
		fmt.Fprintf(&b, "%s: incomplete: the %s stopped (%s) after %s, without a violation; nothing is proved\n",
			name, strat, res.Cut, statsText(res.Stats, true))
	}
	if line := check.AfterFailureLine(rep); line != "" {
		// the verdict is about harmful violations; say what it left aside
		fmt.Fprintf(&b, "%s: %s\n", name, line)
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

// plural puts noun after a rendered count, in the right number.
func plural(n, noun string) string {
	if n == "1" {
		return n + " " + noun
	}
	return n + " " + noun + "s"
}

// pctLine says, of a pct search, with what probability each run finds a
// bug of the depth it aims at in this scenario ("" for other strategies).
func pctLine(rep *check.Report) string {
	if rep.Config.Strategy != check.StrategyPCT || rep.Corpus != "" {
		// a counterexample from the corpus: pct never ran
		return ""
	}
	n, k, d := rep.Program.NumThreads(), check.PCTLength(rep), rep.Config.Depth
	p := fmt.Sprintf("%.3g", check.PCTGuarantee(rep))
	if check.PCTGuarantee(rep) < 1e-300 {
		// below what a float64 holds: say it as a power of ten
		p = fmt.Sprintf("10^%.1f", check.PCTGuaranteeLog10(n, k, d))
	}
	return fmt.Sprintf("pct: each run finds a bug of depth %d with probability at least %s (1/(n*k^(d-1)), n=%d threads, k=%d steps)", d, p, n, k)
}

func list(out io.Writer) error {
	var b strings.Builder
	b.WriteString("protocols:\n")
	for _, v := range variants.All() {
		p := v.Protocol
		fmt.Fprintf(&b, "  %-22s %s (testdata/python/%s; expected %s)\n", p.Name, p.Summary, p.Source, v.Expected)
	}
	b.WriteString("strategies:\n")
	for _, name := range check.Strategies {
		fmt.Fprintf(&b, "  %-22s %s\n", name, check.StrategyDoc[name])
	}
	b.WriteString("atomicity:\n")
	for _, a := range model.Atomicities() {
		fmt.Fprintf(&b, "  %-24s %s\n", a, a.Doc())
	}
	b.WriteString("faults (-faults):\n")
	for _, k := range scenario.FaultKinds {
		fmt.Fprintf(&b, "  %-22s %s\n", k.Name, k.Summary)
	}
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

// statsText is a search's counts for a person: "29 states, 1 execution,
// 28 steps" (without the states for a stateless search).
func statsText(st sched.Stats, states bool) string {
	s := check.Count(st.Executions, "execution") + ", " + check.Count(st.Steps, "step")
	if states {
		s = check.Count(st.States, "state") + ", " + s
	}
	return s
}
