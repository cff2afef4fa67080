package pyreplay_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// long reports whether the heavy suites run: SWAPCHECK_LONG=1
// (testenv.Long), as CI's plain run sets it, except under the race
// detector, which checks the Go side of these tests and not the replays'
// Python. Without it each suite runs a few cases, to stay fast.
func long() bool { return testenv.Long() && !raceEnabled }

// full asks for the counts docs/replay.md's tables state: 20 runs of every
// counterexample on each target, 100 of the emitted test. The scripts that
// write those tables (scripts/replay-tally.sh, scripts/emit-test-tally.sh)
// set it; the long suites replay each a few times, to keep CI within its
// budget.
var full = flag.Bool("pyreplay.full", false, "replay the counts docs/replay.md's tables state (20 runs per counterexample and target, 100 of the emitted test)")

// runsOf is how many times a replay runs: full with -pyreplay.full, else
// count(1, long).
func runsOf(long, full0 int) int {
	if *full {
		return full0
	}
	return count(1, long)
}

// count is how many runs or seeds a suite takes: n by default, full with
// SWAPCHECK_LONG, 1 with -short.
func count(n, full int) int {
	switch {
	case long():
		return full
	case testing.Short():
		return 1
	}
	return n
}

// searchedElsewhere is the variant TestReplayOfEveryCounterexample does
// not search: its searches with faults and two hosts are among the
// largest, and its only counterexamples are the simulator's atomics and
// shared arrays, which merged has too. TestMergedFixReplays replays them.
const searchedElsewhere = "merged-fix"

var tallyOut = flag.String("pyreplay.tally", "", "write TestReplayOfEveryCounterexample's tally as a Markdown table to this file")

// numbaCommits are the numba-cuda commits whose swap each variant is
// (BRIEF.md); proposed is swapcheck's own.
var numbaCommits = map[string]string{
	"naive": "55a84eb7", "global-lock": "8356c6f8", "refcount-unregistered": "41104c54",
	"refcount-del": "67acbfbd", "merged": "d41b90d3",
}

// counterexample is one case of the tally: a variant's counterexample on
// a scenario (the verdict table's flags, or a scenario file) under one
// atomicity, its script, and what its replays did.
type counterexample struct {
	variant, scenario  string
	atomicity          model.Atomicity
	kind               string
	steps              int
	refused            string // the one line the emitter refused it with
	script             string
	numba              bool // replayed on numba (always with long)
	rendition, onNumba tally
}

type tally struct {
	ok, runs int
	first    string // the first run that did not reproduce
}

func (t tally) String() string {
	if t.runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", t.ok, t.runs)
}

// scenarioFiles are testdata/scenarios/*.txt, parsed, by file name.
func scenarioFiles(t *testing.T) ([]string, map[string]*scenario.Scenario) {
	t.Helper()
	paths, err := filepath.Glob("../testdata/scenarios/*.txt")
	require.NoError(t, err)
	out := map[string]*scenario.Scenario{}
	var names []string
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err, p)
		names = append(names, filepath.Base(p))
		out[filepath.Base(p)] = sc
	}
	return names, out
}

// counterexamples searches every registered variant on every verdict-table
// scenario and scenario file under every atomicity (by default: naive,
// refcount-del and merged on the scenario files under gil, each file with
// one of the three, taken in turn along the files as testenv.Rotate
// takes them, and naive on the files whose counterexamples go to numba;
// all three with -pyreplay.full; with
// SWAPCHECK_LONG, every atomicity but free-threaded-overwrite, whose
// counterexamples are refused as free-threaded's are; -pyreplay.full
// searches all four), as explore
// does by default (harmful violations, shrunk), and writes the script of
// each counterexample. Those to replay on numba too are all with long;
// by default merged's, and naive's of the features merged's do not have.
func counterexamples(t *testing.T) []*counterexample {
	t.Helper()
	atomicities := []model.Atomicity{model.GIL}
	switch {
	case *full:
		atomicities = model.Atomicities()
	case long():
		// the free-threaded modes' counterexamples are refused (no GIL
		// build runs them): one of the two shows it, for CI's budget
		atomicities = []model.Atomicity{model.GIL, model.GILBreaker, model.FreeThreaded}
	}
	type world struct {
		name string
		sc   func() (*scenario.Scenario, error)
		file bool
	}
	var worlds []world
	for _, ts := range check.TableShapes {
		if long() {
			worlds = append(worlds, world{name: ts.Flags, sc: ts.Shape.Build})
		}
	}
	names, files := scenarioFiles(t)
	for _, n := range names {
		sc := files[n]
		worlds = append(worlds, world{name: n, sc: func() (*scenario.Scenario, error) { return sc, nil }, file: true})
	}
	dir := t.TempDir()
	var out []*counterexample
	naiveOnNumba := []string{"syncthreads.txt", "branching.txt"}
	byDefault := []string{"naive", "refcount-del", "merged"}
	for _, pr := range check.Protocols() {
		if !long() && !slices.Contains(byDefault, pr.Name) {
			continue
		}
		if pr.Name == searchedElsewhere {
			continue
		}
		for i, w := range worlds {
			onNumba := pr.Name == "naive" && slices.Contains(naiveOnNumba, w.name)
			if !long() && !*full && i%len(byDefault) != slices.Index(byDefault, pr.Name) && !onNumba {
				continue // another of byDefault's turn
			}
			for _, a := range atomicities {
				sc, err := w.sc()
				require.NoError(t, err)
				rep, err := check.Explore(check.Config{Protocol: pr, Scenario: sc, Atomicity: a, Shrink: true})
				require.NoError(t, err)
				if rep.Result.Verdict != sched.Violation {
					continue
				}
				c := &counterexample{variant: pr.Name, scenario: w.name, atomicity: a, kind: rep.Result.Failure.Kind,
					steps: len(rep.Result.Schedule),
					numba: long() || pr.Name == "merged" || onNumba}
				var b bytes.Buffer
				err = pyreplay.Emit(&b, rep)
				var un *pyreplay.Unsupported
				switch {
				case errors.As(err, &un):
					c.refused = err.Error()
					require.NotContains(t, c.refused, "\n")
				default:
					require.NoError(t, err, "%s on %s (%s)", pr.Name, w.name, a)
					sum := sha256.Sum256(b.Bytes())
					c.script = filepath.Join(dir, fmt.Sprintf("%x.py", sum[:8]))
					require.NoError(t, os.WriteFile(c.script, b.Bytes(), 0o644))
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// overlays makes, once per variant, an overlay of the numba that
// pythonWithNumba imports with the variant's swap installed
// (scripts/numba-overlay.py): numba-cuda's own swap and kernel.py at the
// variant's commit when NUMBA_CUDA_REPO names a numba-cuda git directory,
// else the variant's rendition with numba-cuda's device check.
type overlays struct {
	mu   sync.Mutex
	envs map[string]string
	dir  string
}

// packageOverlays are the overlays the package's tests share.
var packageOverlays overlays

func (o *overlays) env(t *testing.T, variant string) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if e, ok := o.envs[variant]; ok {
		return e
	}
	if o.dir == "" {
		dir, err := os.MkdirTemp("", "pyreplay-overlays-")
		require.NoError(t, err)
		o.dir = dir // removed by TestMain
	}
	pr, err := check.Lookup(variant)
	require.NoError(t, err)
	dir := filepath.Join(o.dir, variant)
	args := []string{"../scripts/numba-overlay.py", dir, "--swap", "../testdata/python/" + pr.Source, "--device-check"}
	if repo, c := os.Getenv("NUMBA_CUDA_REPO"), numbaCommits[variant]; repo != "" && c != "" {
		args = []string{"../scripts/numba-overlay.py", dir, "--commit", c, "--repo", repo}
	}
	out, err := exec.Command(pythonWithNumba(t), args...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	if o.envs == nil {
		o.envs = map[string]string{}
	}
	o.envs[variant] = "PYTHONPATH=" + dir
	return o.envs[variant]
}

// TestMain removes the overlays the tests shared, and findPython's
// links.
func TestMain(m *testing.M) {
	code := m.Run()
	if packageOverlays.dir != "" {
		os.RemoveAll(packageOverlays.dir)
	}
	if foundDir != "" {
		os.RemoveAll(foundDir)
	}
	os.Exit(code)
}

// Every harmful counterexample the search finds, on the verdict table's
// scenarios and on testdata/scenarios, replays: its violation happens on
// the rendition, and on numba's simulator with the variant's swap
// installed in it, every run; or the emitter refuses it in one line (the
// free-threaded modes, which no GIL build can run). By default: gil's
// counterexamples of each scenario file with one of naive, refcount-del
// and merged in turn (counterexamples) once on the rendition, and naive's
// and merged's among them once on numba; with SWAPCHECK_LONG, those of gil,
// gil-breaker and free-threaded (counterexamples searches), once on each
// target (a replay forces every turn, so a second run adds little; twice
// took 313 s of CI's budget); with -pyreplay.full every atomicity's, 20
// runs (-pyreplay.tally FILE writes the table docs/replay.md shows;
// scripts/replay-tally.sh runs it).
func TestReplayOfEveryCounterexample(t *testing.T) {
	t.Parallel()
	py := testenv.Python311(t)
	runs := runsOf(1, 20)
	cases := counterexamples(t)
	var numbaPy string
	if slices.ContainsFunc(cases, func(c *counterexample) bool { return c.numba }) {
		numbaPy = pythonWithNumba(t)
	}
	ov := &packageOverlays
	// each distinct script once per target, in batches that share a
	// python and environment, two runs at a time
	type batch struct {
		py    string
		env   []string
		args  []string
		cases []*counterexample
	}
	rendition := &batch{py: py}
	onNumba := map[string]*batch{}
	var order []string
	done := map[string]*counterexample{}
	for _, c := range cases {
		if c.refused != "" {
			continue
		}
		if _, ok := done[c.script]; ok {
			continue
		}
		done[c.script] = c
		rendition.cases = append(rendition.cases, c)
	}
	for _, c := range cases {
		if d := done[c.script]; d != nil && c.numba && !d.numba {
			d.numba = true // a copy to replay on numba too
		}
	}
	for _, c := range rendition.cases {
		if !c.numba || c.variant == "proposed" {
			continue
		}
		b := onNumba[c.variant]
		if b == nil {
			b = &batch{py: numbaPy, env: []string{ov.env(t, c.variant)}, args: []string{"--target", "numba"}}
			onNumba[c.variant] = b
			order = append(order, c.variant)
		}
		b.cases = append(b.cases, c)
	}
	run := func(b *batch, into func(*counterexample) *tally) {
		var scripts []string
		for _, c := range b.cases {
			for range runs {
				scripts = append(scripts, c.script)
			}
		}
		rs := runPythonEnv(b.py, b.env, scripts, b.args...)
		for i, c := range b.cases {
			tl := into(c)
			for _, r := range rs[i*runs : (i+1)*runs] {
				tl.runs++
				if r.code == 1 && strings.Contains(r.stdout, fmt.Sprintf("replay: all %d turns forced", c.steps)) &&
					strings.Contains(r.stdout, "verdict: reproduced "+c.kind) {
					tl.ok++
				} else if tl.first == "" {
					tl.first = fmt.Sprintf("exit %d:\n%s", r.code, r.stdout)
				}
			}
		}
	}
	run(rendition, func(c *counterexample) *tally { return &c.rendition })
	for _, v := range order {
		run(onNumba[v], func(c *counterexample) *tally { return &c.onNumba })
	}
	for _, c := range cases {
		if d := done[c.script]; d != nil && d != c {
			c.rendition = d.rendition
			if c.numba {
				c.onNumba = d.onNumba
			}
		}
	}
	if *tallyOut != "" {
		require.NoError(t, os.WriteFile(*tallyOut, []byte(tallyTable(cases, os.Getenv("NUMBA_CUDA_REPO") != "")), 0o644))
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s on %s (%s)", c.variant, c.scenario, c.atomicity)
		if c.refused != "" {
			// a free-threaded interleaving
			require.True(t, c.atomicity.NoGIL(), "%s: refused: %s", name, c.refused)
			continue
		}
		require.Equal(t, c.rendition.runs, c.rendition.ok, "%s on the rendition: %s", name, c.rendition.first)
		require.Equal(t, c.onNumba.runs, c.onNumba.ok, "%s on numba: %s", name, c.onNumba.first)
	}
}

// tallyTable renders the tally: one row per counterexample that replays
// (one for gil and gil-breaker when their counterexamples are the same
// script), and one line for those refused, by reason.
func tallyTable(cases []*counterexample, upstream bool) string {
	var b strings.Builder
	numba := "numba 0.56.4, the variant's rendition installed and numba-cuda's device check"
	if upstream {
		numba = "numba 0.56.4, numba-cuda's swap and kernel.py at the variant's commit installed"
	}
	fmt.Fprintf(&b, "| variant | scenario | atomicity | counterexample | rendition | %s |\n|---|---|---|---|---|---|\n", numba)
	refused := map[string]int{}
	var reasons []string
	printed := map[*counterexample]bool{}
	for i, c := range cases {
		if c.refused != "" {
			if refused[c.refused] == 0 {
				reasons = append(reasons, c.refused)
			}
			refused[c.refused]++
			continue
		}
		if printed[c] {
			continue
		}
		atomicity := c.atomicity.String()
		for _, d := range cases[i+1:] {
			if d.variant == c.variant && d.scenario == c.scenario && d.script == c.script && d.refused == "" {
				atomicity += ", " + d.atomicity.String()
				printed[d] = true
			}
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | `%s` (%d steps) | %s | %s |\n", c.variant, c.scenario, atomicity, c.kind, c.steps, c.rendition, c.onNumba)
	}
	for _, r := range reasons {
		fmt.Fprintf(&b, "\nRefused, %d counterexamples: %s.\n", refused[r], r)
	}
	return b.String()
}
