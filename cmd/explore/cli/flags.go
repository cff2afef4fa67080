package cli

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"swapcheck/check"
	"swapcheck/check/memory"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/stress"
)

// modeID names a mode (modes.go).
type modeID uint8

const (
	modeList modeID = 1 + iota
	modeTable
	modeVersion
	modeCompare
	modeStress
	modeReplayRandom
	modeReplay
	modeSource
	modeSearch
)

// modeSet is a set of modes (bit id-1 for modeID id).
type modeSet uint16

func modesOf(ids ...modeID) modeSet {
	var s modeSet
	for _, id := range ids {
		s |= 1 << (id - 1)
	}
	return s
}

func (s modeSet) has(id modeID) bool { return s&(1<<(id-1)) != 0 }

// A flagDef is one flag of explore: its name, the modes that read it, its
// definition on a FlagSet (bound to its field of options, with its
// usage and default), the value check a search or stress run applies to
// it, and, for a flag only some strategies read, those strategies. The
// table below is the one place flags are declared: the modes' lists of
// the flags they read (modes.go), -h (usage.go) and the refusal of a flag
// a mode or strategy does not read all come from it.
type flagDef struct {
	name       string
	modes      modeSet
	define     func(fs *flag.FlagSet, o *options)
	check      func(o *options) error
	strategies []string
}

var (
	// the flags that say what is checked: the search's, stress's and
	// -replay-random's
	targetModes = modesOf(modeSearch, modeStress, modeReplayRandom)
	// the flags of files written
	outModes = modesOf(modeSearch, modeStress, modeReplayRandom, modeReplay)
	// the flags that say which world is checked, which -source reads too
	worldModes = targetModes | modesOf(modeSource)
)

// flagTable is every flag, in the order -h lists them under their first
// mode.
var flagTable = []flagDef{
	{name: "protocol", modes: targetModes, define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.protocol, "protocol", "", "the variant to check: "+strings.Join(protocolNames(), ", "))
	}},
	{name: "scenario", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.scenario, "scenario", "", "read the scenario from `FILE` instead (see testdata/scenarios/README.md)")
	}},
	{name: "atomicity", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.atomicity, "atomicity", model.GIL.String(), "what one step is: "+strings.Join(atomicityNames(), ", ")+" (-list says what each does)")
	}},
	{name: "threads", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		o.shape.Threads = scenario.DefaultShape.Threads
		fs.Var(threadsFlag{o}, "threads", fmt.Sprintf("GPU threads per block, 1..%d (1..%d with -source); above %d, -strategy auto first tries the proof for every number where the critical sections do not commute; all: prove the variant for every number (docs/every-n.md)", scenario.MaxThreads, scenario.MaxSourceThreads, wideByProof))
	}},
	{name: "blocks", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Blocks, "blocks", scenario.DefaultShape.Blocks, fmt.Sprintf("blocks per launch (run one after another), 1..%d", scenario.MaxBlocks))
	}},
	{name: "calls", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Calls, "calls", scenario.DefaultShape.Calls, fmt.Sprintf("device-function calls each thread makes, 0..%d", scenario.MaxStmts/2))
	}},
	{name: "modules", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Modules, "modules", scenario.DefaultShape.Modules, fmt.Sprintf("device modules the calls go to, round-robin, 1..%d (besides the kernel's)", scenario.MaxModules-1))
	}},
	{name: "names", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Names, "names", scenario.DefaultShape.Names, fmt.Sprintf("globals per module bound to cuda (cuda, cu, ...), 1..%d", scenario.MaxNames))
	}},
	{name: "nest", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Nest, "nest", scenario.DefaultShape.Nest, fmt.Sprintf("depth of nested device calls inside each call, 0..%d; modules x (nest+1) at most %d", scenario.MaxNest, scenario.MaxFunctions))
	}},
	{name: "syncthreads", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.shape.Syncthreads, "syncthreads", false, "call cuda.syncthreads() after each device call")
	}},
	{name: "host-calls", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.shape.HostCalls, "host-calls", false, "the host also calls f1 itself, before and after the launch (a device function called from the host)")
	}},
	{name: "hosts", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.shape.Hosts, "hosts", 1, fmt.Sprintf("host threads, each launching the kernel at once, 1..%d", scenario.MaxHosts))
	}},
	{name: "branch", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.shape.Branch, "branch", false, "threads differ: thread 0 makes the kernel's calls once, the others twice (if cuda.threadIdx.x == 0: ... else: for _ in range(2): ...)")
	}},
	{name: "atomics", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.atomics, "atomics", "", "the kernel takes an array a and thread tid makes cuda.atomic.OP(a, 0, 1), OP the (tid % n)-th of these comma-separated FakeCUDAAtomic methods (add,sub: the lost update)")
	}},
	{name: "shared", modes: worldModes, define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.shape.Shared, "shared", false, "each thread first allocates s = cuda.shared.array(THREADS, numba.int64) (FakeCUDAShared's allocation)")
	}},
	{name: "fix", modes: targetModes, define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.fix, "fix", "", "run the simulator with these fixes, comma-separated: "+strings.Join(scenario.FixNames(), ", ")+" (docs/simulator-fixes.md)")
	}},
	{name: "faults", modes: modesOf(modeSearch, modeReplayRandom, modeSource), define: func(fs *flag.FlagSet, o *options) {
		var names []string
		for _, k := range scenario.FaultKinds {
			names = append(names, k.Name)
		}
		fs.StringVar(&o.faults, "faults", "", "faults to explore besides the interleavings, comma-separated: "+strings.Join(names, ", ")+" (-list says what each does)")
	}},
	{name: "max-faults", modes: modesOf(modeSearch, modeReplayRandom, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.maxFaults, "max-faults", 1, fmt.Sprintf("the most faults in one execution, 1..%d", scenario.MaxFaultsBound))
	}},
	{name: "backend", modes: modesOf(modeSearch, modeStress), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.stress.backend, "backend", backendModel, "model (the simulated scheduler's searches) or goroutines (stress: every thread a real goroutine, launch after launch)")
	}},
	{name: "strategy", modes: modesOf(modeSearch), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.strategy, "strategy", check.StrategyAuto, "how to search: "+strings.Join(check.Strategies, ", ")+" (-list says what each does); with -shard, auto runs states")
	}},
	{name: "preemptions", modes: modesOf(modeSearch, modeCompare), strategies: []string{check.StrategyBounded}, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.preemptions, "preemptions", 3, "the most preemptions -strategy bounded tries, 0 or more")
	}},
	{name: "depth", modes: modesOf(modeSearch, modeCompare), strategies: []string{check.StrategyPCT}, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.depth, "depth", 3, "the bug depth -strategy pct aims at, 1 or more")
	}},
	{name: "runs", modes: modesOf(modeSearch), strategies: []string{check.StrategyRandom, check.StrategyPCT}, define: func(fs *flag.FlagSet, o *options) {
		fs.Int64Var(&o.runs, "runs", 1000, "executions for -strategy random and -strategy pct, 1 or more")
	}, check: func(o *options) error {
		if o.runs < 1 {
			return usagef("-runs must be at least 1, got %d", o.runs)
		}
		return nil
	}},
	{name: "workers", modes: modesOf(modeSearch, modeCompare, modeReplayRandom), strategies: []string{check.StrategyAuto, check.StrategyStates, check.StrategyDFS, check.StrategyPOR}, define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "goroutines for an exhaustive search, 1..1024 (verdicts and counts do not depend on it; with more than one, preemption statistics can vary by run)")
	}, check: func(o *options) error {
		if o.workers < 1 || o.workers > 1024 {
			return usagef("-workers must be 1..1024, got %d", o.workers)
		}
		return nil
	}},
	{name: "seed", modes: modesOf(modeSearch, modeCompare, modeStress, modeReplayRandom), strategies: []string{check.StrategyRandom, check.StrategyPCT}, define: func(fs *flag.FlagSet, o *options) {
		fs.Uint64Var(&o.seed, "seed", 1, "seed for -strategy random and -strategy pct, for -backend goroutines and for -compare's trials")
	}},
	{name: "max-executions", modes: modesOf(modeSearch), define: func(fs *flag.FlagSet, o *options) {
		fs.Int64Var(&o.maxExecutions, "max-executions", 0, "stop after this many executions (0: no limit; on several workers, at most one more per further worker); the verdict is then incomplete")
	}, check: func(o *options) error {
		if o.maxExecutions < 0 {
			return usagef("-max-executions must be 0 or more, got %d", o.maxExecutions)
		}
		return nil
	}},
	{name: "max-depth", modes: modesOf(modeSearch, modeCompare, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.maxDepth, "max-depth", 0, fmt.Sprintf("per-execution step budget, 0 or more (0: %d); reaching it makes the verdict incomplete", sched.DefaultMaxDepth))
	}, check: func(o *options) error {
		if o.maxDepth < 0 {
			return usagef("-max-depth must be 0 or more, got %d", o.maxDepth)
		}
		return nil
	}},
	{name: "max-memory", modes: modesOf(modeSearch), define: func(fs *flag.FlagSet, o *options) {
		o.maxMemory = memory.Size(memory.Default())
		fs.Var(&o.maxMemory, "max-memory", fmt.Sprintf("stop the search once the process holds this much memory, `SIZE` such as 500MiB, 2GiB or 1GB, at least %s (0: no bound; the default is %.0f%% of this machine's memory); the verdict is then incomplete", memory.Size(memory.Minimum), 100*memory.DefaultShare))
	}, check: func(o *options) error {
		if o.maxMemory > 0 && o.maxMemory < memory.Minimum {
			return usagef("-max-memory must be 0 (no bound) or at least %s (the process holds about 30 MiB before it searches), got %s", memory.Size(memory.Minimum), o.maxMemory)
		}
		return nil
	}},
	{name: "timeout", modes: modesOf(modeSearch, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.DurationVar(&o.timeout, "timeout", 0, "stop the search after this long (0: none); the verdict is then incomplete; Ctrl-C, SIGTERM and SIGHUP stop it too")
	}, check: func(o *options) error {
		if o.timeout < 0 {
			return usagef("-timeout must be 0 or more, got %s", o.timeout)
		}
		return nil
	}},
	{name: "out", modes: outModes | modesOf(modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.out, "out", "", "write trace.txt, trace.json, trace.html, schedule.txt and summary.json (and, for a violation, report.md and replay.py) into `DIR` (-source: trace.txt, schedule.txt and summary.json)")
	}},
	{name: "force", modes: outModes | modesOf(modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.force, "force", false, "with -out, replace an earlier run's files there, all of them (none is left beside the new ones); with -emit-python or -emit-test, overwrite their files")
	}},
	{name: "shard", modes: modesOf(modeSearch), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.shard, "shard", "", "run part `i/n` (0 <= i < n) of an exhaustive stateful search (states, the default, or dfs); a part proves nothing alone: explore merge of every part's summary.json gives the verdict (see docs/sharding.md)")
	}},
	{name: "json", modes: modesOf(modeSearch, modeStress, modeReplay, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.json, "json", false, "print the JSON summary on stdout instead of the trace")
	}},
	{name: "quiet", modes: modesOf(modeSearch, modeCompare, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.quiet, "quiet", false, "no progress report on stderr")
	}},
	{name: "emit-python", modes: modesOf(modeSearch, modeReplay, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.emitPython, "emit-python", "", "write the counterexample (or the walk of -runs 1 without one) as a standalone Python script `FILE` that replays it on real threads (docs/replay.md); -force overwrites FILE")
	}},
	{name: "emit-test", modes: modesOf(modeSearch, modeReplay), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.emitTest, "emit-test", "", "write the counterexample as a regression test `FILE` (test_NAME.py, and support_NAME.py next to it) for numba-cuda's cudasim test suite (docs/replay.md); -force overwrites them")
	}},
	{name: "report", modes: modesOf(modeSearch, modeReplay, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.report, "report", "", "print, instead of the trace, the violation in `FORMAT`: md (a bug report in Markdown for a GitHub issue; -out writes it as report.md too) or html (a standalone page with a timeline per thread; -out writes it as trace.html)")
	}},
	{name: "want", modes: modesOf(modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.want, "want", "", "look for a violation of this `KIND` (deadlock, left-swapped, ...): a violation of another kind ends its execution and the search goes on; without it the search stops at the first violation of any kind")
	}},
	{name: "shrink", modes: modesOf(modeSearch, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.shrink, "shrink", true, "shrink a counterexample: the smallest scenario, then the fewest preemptions, then the fewest steps that keep its violation kind (-shrink=false: as the search found it; never for a -shard part)")
	}},
	{name: "corpus", modes: modesOf(modeSearch), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.corpus, "corpus", "", "before searching, replay your store of known counterexamples, the trace.json files in `DIR`, of the same protocol and atomicity on the scenario; the first that ends in a violation is reported at once, and the search runs only when none does (default none; never for a -shard part)")
	}},
	{name: "after-failure", modes: modesOf(modeSearch, modeReplayRandom), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.afterFailure, "after-failure", false, "report after-failure violations too (a thread of a launch that has already failed sees a wrong module, which hurts nobody); by default a search looks for harmful ones and steps past these")
	}},
	{name: "list", modes: modesOf(modeList), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.list, "list", false, "list the variants, strategies and violation kinds, then exit")
	}},
	{name: "table", modes: modesOf(modeTable), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.table, "table", false, "verify every variant on the README's scenarios and print the verdicts as a Markdown table")
	}},
	{name: "version", modes: modesOf(modeVersion), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.version, "version", false, "print the version of explore and of its file formats, then exit")
	}},
	{name: "compare", modes: modesOf(modeCompare), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.stress.compare, "compare", false, "time the first counterexample of each buggy variant by every strategy and by stress, and print a Markdown table")
	}},
	{name: "trials", modes: modesOf(modeCompare), define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.stress.trials, "trials", 5, "-compare: runs per cell, 1 or more (the median is shown)")
	}},
	{name: "duration", modes: modesOf(modeCompare, modeStress), define: func(fs *flag.FlagSet, o *options) {
		fs.DurationVar(&o.stress.duration, "duration", 0, "-backend goroutines: stress for this long (default 1s when -max-calls is not given either); -compare: the cap of each trial (default 10s)")
	}},
	{name: "max-calls", modes: modesOf(modeStress), define: func(fs *flag.FlagSet, o *options) {
		fs.Int64Var(&o.stress.maxCalls, "max-calls", 0, "-backend goroutines: stop after this many device calls (0: no limit), counted at the end of each launch")
	}},
	{name: "gosched", modes: modesOf(modeStress), define: func(fs *flag.FlagSet, o *options) {
		fs.Float64Var(&o.stress.gosched, "gosched", stress.DefaultGosched, "-backend goroutines: the probability that a goroutine yields (runtime.Gosched) after a step, drawn from -seed")
	}},
	{name: "replay-random", modes: modesOf(modeReplayRandom), define: func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.rr.n, "replay-random", 0, "replay `N` random walks of the scenario on real Python threads (seeds from -seed) and tally how each ended against the model's walk (docs/replay.md)")
	}},
	{name: "python", modes: modesOf(modeReplayRandom, modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.rr.python, "python", "", "with -source: the CPython that compiles the file, `PATH|VERSION` (a path, or a version such as 3.12; default: the newest supported one on PATH, then under pyenv); with -replay-random: the Python that runs the replays, a CPython 3.11 (default python3; Debian's numba is /usr/bin/python3's)")
	}},
	{name: "target", modes: modesOf(modeReplayRandom), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.rr.target, "target", "rendition", "with -replay-random: rendition (swapcheck's stand-in simulator) or numba (the installed numba's simulator)")
	}},
	{name: "swap", modes: modesOf(modeReplayRandom), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.rr.swap, "swap", "installed", "with -replay-random -target numba: installed (the simulator's own swapped_cuda_module) or rendition (the variant's in its place)")
	}},
	{name: "source", modes: modesOf(modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.source, "source", "", "check the swap function of the Python file `FILE[:NAME]` as it is written (NAME defaults to "+pysource.DefaultFunction+"): a real CPython (-python) compiles it, and its bytecode runs in the model's launch (README: \"Checking your own swap function\")")
	}},
	{name: "thread-context", modes: modesOf(modeSource), define: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.threadContext, "thread-context", false, "with -source: run kernel.py as docs/proposed_fix.md patches it (each BlockThread carries its launch's fake, no module-level _kernel_context), as the variants proposed and merged-fix do")
	}},
	{name: "replay", modes: modesOf(modeReplay), define: func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.replay, "replay", "", "replay the trace.json or schedule.txt `FILE` written by -out (its protocol, atomicity and scenario)")
	}},
}

// defineFlags defines every flag of the table on fs, bound to o.
func defineFlags(fs *flag.FlagSet, o *options) {
	for _, f := range flagTable {
		f.define(fs, o)
	}
}

// flagsOf is the flags mode id reads, in the table's order.
func flagsOf(id modeID) []string {
	var names []string
	for _, f := range flagTable {
		if f.modes.has(id) {
			names = append(names, f.name)
		}
	}
	return names
}

// checkFlagValues applies the value checks of the flags mode id reads.
func checkFlagValues(o *options, id modeID) error {
	for _, f := range flagTable {
		if f.check != nil && f.modes.has(id) {
			if err := f.check(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkStrategyFlags refuses a flag given that the chosen strategy does
// not read.
func checkStrategyFlags(o *options) error {
	for _, f := range flagTable {
		if f.strategies != nil && o.set[f.name] && !slices.Contains(f.strategies, o.strategy) {
			return usagef("-strategy %s does not read -%s (read by -strategy %s)", o.strategy, f.name, strings.Join(f.strategies, ", "))
		}
	}
	return nil
}

// strategiesOf is the strategies that read flag name (nil: every one).
func strategiesOf(name string) []string {
	for _, f := range flagTable {
		if f.name == name {
			return f.strategies
		}
	}
	return nil
}
