package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// -replay-random N: N random walks of the scenario (seeds -seed, -seed+1,
// ...), each written as a replay script (package pyreplay) and run once
// on real Python threads, and a tally of how each replay ended against
// the model's walk: a walk with a violation must reproduce its kind, one
// without must see none. A walk the script cannot force (an interrupt
// landing it cannot force, say) is refused, counted, and replaced by
// the next seed's, up to 4N seeds.
type replayRandomOptions struct {
	n                    int
	python, target, swap string
}

// rrMaxWalks bounds -replay-random's N.
const rrMaxWalks = 100_000

// rrWalk is one walk and its replay.
type rrWalk struct {
	seed   uint64
	script string
	expect string // the model's violation kind, "" for none
	code   int
	out    string
	// how the replay ended against the model's walk: agree, disagree or
	// failed (a turn could not be forced), and its line
	outcome, line string
}

func runReplayRandom(o *options, stdout, stderr io.Writer) (int, error) {
	rr := o.rr
	rr.python = cmp.Or(rr.python, "python3") // -python's default here (-source has its own)
	switch {
	case rr.n < 1 || rr.n > rrMaxWalks:
		return 0, usagef("-replay-random must be 1..%d, got %d", rrMaxWalks, rr.n)
	case rr.target != "rendition" && rr.target != "numba":
		return 0, usagef("unknown -target %q (want rendition or numba)", rr.target)
	case rr.swap != "installed" && rr.swap != "rendition":
		return 0, usagef("unknown -swap %q (want installed or rendition)", rr.swap)
	case rr.swap != "installed" && rr.target != "numba":
		return 0, usagef("-swap applies to -target numba (the rendition target always runs the rendition)")
	case o.workers < 1 || o.workers > 1024:
		return 0, usagef("-workers must be 1..1024, got %d", o.workers)
	}
	pr, a, sc, err := target(o, scenario.MaxThreads)
	if err != nil {
		return 0, err
	}
	if a.NoGIL() {
		return 0, usagef("-replay-random: a GIL build cannot run a -atomicity %s interleaving (replay gil's or gil-breaker's)", a)
	}
	py, err := exec.LookPath(rr.python)
	if err != nil {
		return 0, usagef("-python %s: %v", rr.python, unwrapPath(err))
	}
	args := []string{"--target", rr.target}
	if rr.target == "numba" {
		args = append(args, "--swap", rr.swap)
	}
	dir := o.out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "explore-replay-random-"); err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
	} else if err := prepareReplayRandomOut(dir, o.force); err != nil {
		return 0, err
	}

	// the walks, until N of them can be replayed
	var walks []*rrWalk
	refused := map[string]int{}
	tried := 0
	for seed := o.seed; len(walks) < rr.n && tried < 4*rr.n; seed++ {
		tried++
		rep, err := check.Explore(check.Config{Protocol: pr, Scenario: sc, Atomicity: a, Strategy: check.StrategyRandom,
			Runs: 1, Seed: seed, Scope: scope(o), Workers: 1})
		if err != nil {
			return 0, usageError{err.Error()}
		}
		w := &rrWalk{seed: seed}
		if rep.Result.Verdict == sched.Violation {
			w.expect = rep.Result.Failure.Kind
		}
		var b bytes.Buffer
		if err := pyreplay.Emit(&b, rep); err != nil {
			var un *pyreplay.Unsupported
			if !errors.As(err, &un) {
				return 0, fmt.Errorf("seed %d: %v", seed, err)
			}
			refused[un.What]++
			continue
		}
		w.script = filepath.Join(dir, fmt.Sprintf("seed-%d.py", seed))
		if err := os.WriteFile(w.script, b.Bytes(), 0o644); err != nil {
			return 0, unwrapPath(err)
		}
		walks = append(walks, w)
	}
	// the first alone: a replay that fails before its first turn (no
	// numba, a swap that is not the variant, a Python that is not 3.11)
	// fails the same way for every walk
	if len(walks) > 0 {
		w := walks[0]
		w.code, w.out = runOne(py, w.script, args)
		if line, ok := setupFailure(w.code, w.out); ok {
			return 0, usagef("-replay-random: %s %s: %s", rr.python, strings.Join(args, " "), line)
		}
	}
	workers := min(o.workers, runtime.NumCPU())
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for _, w := range walks[min(1, len(walks)):] {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			w.code, w.out = runOne(py, w.script, args)
		})
	}
	wg.Wait()
	for _, w := range walks {
		judgeWalk(w)
		if o.out != "" {
			if err := os.WriteFile(strings.TrimSuffix(w.script, ".py")+".txt", []byte(w.out), 0o644); err != nil {
				return 0, unwrapPath(err)
			}
		}
	}
	return reportReplayRandom(o, pr.Name, a, sc, py, args, walks, refused, tried, stdout)
}

// runOne runs script once with py and args, and returns its exit status
// and output (stdout and stderr).
func runOne(py, script string, args []string) (int, string) {
	cmd := exec.Command(py, append([]string{script}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		return -1, out.String() + err.Error()
	}
	return 0, out.String()
}

// setupFailure is the line of a replay that failed before it could force
// any turn (exit status 2, and no "turn ..." in its failure).
func setupFailure(code int, out string) (string, bool) {
	if code != 2 {
		return "", false
	}
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "replay failed: "); ok {
			return l, !strings.HasPrefix(rest, "turn ") && !strings.HasPrefix(rest, "the schedule ended") && !strings.Contains(rest, "interrupts landed")
		}
	}
	return lastLine(out), true
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// judgeWalk says how w's replay ended against the model's walk.
func judgeWalk(w *rrWalk) {
	verdict := ""
	for _, l := range strings.Split(w.out, "\n") {
		if strings.HasPrefix(l, "verdict: ") || strings.HasPrefix(l, "replay failed: ") {
			verdict = l
		}
	}
	w.line = verdict
	if verdict == "" {
		w.line = lastLine(w.out)
	}
	switch {
	case w.code == 2:
		w.outcome = "failed"
	case w.expect == "" && w.code == 0 && verdict == "verdict: no violation",
		w.expect != "" && w.code == 1 && verdict == "verdict: reproduced "+w.expect:
		w.outcome = "agree"
	default:
		w.outcome = "disagree"
	}
}

func reportReplayRandom(o *options, variant string, a model.Atomicity, sc *scenario.Scenario, py string, args []string,
	walks []*rrWalk, refused map[string]int, tried int, stdout io.Writer) (int, error) {
	world := o.scenario
	if world == "" {
		world = "the scenario of the flags"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay-random: %s, atomicity %s, %s: %d random walks (%d seeds from %d) replayed once each with %s %s\n",
		variant, a, world, len(walks), tried, o.seed, py, strings.Join(args, " "))
	count := map[string]int{}
	model := map[string]int{}
	for _, w := range walks {
		count[w.outcome]++
		model[cmpKind(w.expect)]++
	}
	var kinds []string
	for k := range model {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, model[k]))
	}
	fmt.Fprintf(&b, "  the model's walks: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(&b, "  the replay agrees with the model: %d\n", count["agree"])
	fmt.Fprintf(&b, "  the replay disagrees: %d\n", count["disagree"])
	fmt.Fprintf(&b, "  the replay could not force a turn: %d\n", count["failed"])
	var reasons []string
	for r := range refused {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "  refused (the replay cannot force %s): %d seeds, replaced by later ones\n", r, refused[r])
	}
	rerun := "go run ./cmd/explore " + strings.Join(replayRandomArgs(o), " ")
	for _, w := range walks {
		if w.outcome != "agree" {
			model := "no violation"
			if w.expect != "" {
				model = "violation " + w.expect
			}
			fmt.Fprintf(&b, "  seed %d: the model's walk has %s; the replay: %s\n    rerun: %s -replay-random 1 -seed %d -out DIR (keeps the script)\n",
				w.seed, model, w.line, rerun, w.seed)
		}
	}
	code := ExitOK
	switch {
	case count["agree"] < len(walks):
		fmt.Fprintf(&b, "verdict: the replay disagrees with the model on %d of %d walks\n", len(walks)-count["agree"], len(walks))
		code = ExitViolation
	case len(walks) < o.rr.n:
		fmt.Fprintf(&b, "verdict: incomplete: only %d of %d walks could be replayed in %d seeds; the replay agrees with the model on each\n", len(walks), o.rr.n, tried)
		code = ExitIncomplete
	default:
		fmt.Fprintf(&b, "verdict: the replay agrees with the model on %d of %d walks\n", count["agree"], len(walks))
	}
	_, err := io.WriteString(stdout, b.String())
	return code, err
}

func cmpKind(k string) string {
	if k == "" {
		return "no violation"
	}
	return k
}

// replayRandomArgs are the flags given, but -replay-random, -seed and -out.
func replayRandomArgs(o *options) []string {
	var out []string
	for _, f := range o.flagArgs {
		if f.name == "replay-random" || f.name == "seed" || f.name == "out" || f.name == "force" {
			continue
		}
		out = append(out, f.words...)
	}
	return out
}

// prepareReplayRandomOut makes -out's directory for the scripts
// (seed-N.py) and their outputs (seed-N.txt), refusing one that holds
// some already unless forced.
func prepareReplayRandomOut(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("-out: %v", unwrapPath(err))
	}
	if !force {
		if m, _ := filepath.Glob(filepath.Join(dir, "seed-*.py")); len(m) > 0 {
			return usagef("-out %s already holds %s; pass -force to overwrite, or pick another directory", dir, filepath.Base(m[0]))
		}
	}
	return nil
}
