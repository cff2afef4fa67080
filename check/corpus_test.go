package check_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// goldenTrace reads a golden trace.json.
func goldenTrace(t *testing.T, name string) *check.Trace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name))
	require.NoError(t, err)
	tr, err := check.ReadTrace(data)
	require.NoError(t, err)
	return tr
}

// writeCorpus writes traces into a new corpus directory, by file name.
func writeCorpus(t *testing.T, files map[string]*check.Trace) string {
	t.Helper()
	dir := t.TempDir()
	for name, tr := range files {
		var b bytes.Buffer
		require.NoError(t, tr.WriteJSON(&b))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
	}
	return dir
}

func readCorpus(t *testing.T, dir string) *check.Corpus {
	t.Helper()
	c, err := check.ReadCorpus(dir)
	require.NoError(t, err)
	return c
}

// withThreads is tr with its scenario's threads set to n (text and
// shape), its schedule unchanged.
func withThreads(t *testing.T, tr *check.Trace, n int) *check.Trace {
	t.Helper()
	c := *tr
	sc, err := scenario.Parse(strings.NewReader(tr.Scenario.Text))
	require.NoError(t, err)
	sc.Threads = n
	c.Scenario.Text, c.Scenario.Threads = sc.String(), n
	return &c
}

// TestCorpusFindsAKnownCounterexample: a pct search that misses naive's
// race finds it at once in the golden corpus, without searching, and
// says which file it came from; so does a larger scenario on which the
// golden schedule replays to a violation, and the counterexample is then
// shrunk as a search's would be.
func TestCorpusFindsAKnownCounterexample(t *testing.T) {
	corpus := readCorpus(t, goldenDir)
	require.Empty(t, corpus.Unread)
	pct := check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, 2), Atomicity: model.GIL, Strategy: check.StrategyPCT, Runs: 100, Seed: 1, Depth: 3}

	missed, err := check.Explore(pct)
	require.NoError(t, err)
	require.Equal(t, sched.NoViolationFound, missed.Result.Verdict, "pct with this seed finds the race alone: pick a seed that misses it")
	require.Nil(t, missed.CorpusRun)

	pct.Corpus = corpus
	found, err := check.Explore(pct)
	require.NoError(t, err)
	require.Equal(t, sched.Violation, found.Result.Verdict)
	require.Equal(t, check.KindUseSawReal, found.Result.Failure.Kind)
	require.Equal(t, int64(1), found.Result.Stats.Executions, "a search ran")
	require.NotEmpty(t, found.Corpus)
	entry := goldenTrace(t, filepath.Base(found.Corpus))
	require.Equal(t, entry.Schedule, check.ScheduleInts(found.Result.Schedule))
	require.Equal(t, found.Corpus, found.CorpusRun.Hit)
	require.Contains(t, found.CorpusRun.String(), found.Corpus+" replays to a violation on this scenario, so no search ran")

	tr, err := check.NewTrace(found, "")
	require.NoError(t, err)
	require.Equal(t, found.Corpus, tr.Corpus)
	var text bytes.Buffer
	require.NoError(t, tr.WriteText(&text))
	require.Contains(t, text.String(), "\nfound in the corpus, before any search:\n    "+found.Corpus+"\n")
	require.Equal(t, found.Corpus, check.Summarize(found).Corpus)

	t.Run("a larger scenario, shrunk", func(t *testing.T) {
		shape := scenario.Shape{Threads: 4, Blocks: 1, Calls: 2, Modules: 1, Names: 1}
		sc, err := shape.Build()
		require.NoError(t, err)
		cfg := check.Config{Protocol: protocol(t, "naive"), Scenario: sc, Shape: &shape, Atomicity: model.GIL, Strategy: check.StrategyDFS, Shrink: true, Corpus: corpus}
		rep, err := check.Explore(cfg)
		require.NoError(t, err)
		require.NotEmpty(t, rep.Corpus, "no golden schedule replays to a violation on 4 threads")
		require.Equal(t, check.KindUseSawReal, rep.Result.Failure.Kind)
		require.True(t, strings.HasPrefix(rep.ShrunkText(), "threads 4 -> 2, calls 2 -> 1"), rep.ShrunkText())
	})
}

// TestCorpusOrder: an entry of the same scenario answers before one of
// another scenario whose schedule also fits, whatever their names; an
// entry of another scenario answers when its schedule replays to a
// violation; the same corpus answers the same on every run.
func TestCorpusOrder(t *testing.T) {
	seed := goldenTrace(t, "naive-gil-2-threads.json")
	dir := writeCorpus(t, map[string]*check.Trace{"a-three-threads.json": withThreads(t, seed, 3), "b-two-threads.json": seed})
	corpus := readCorpus(t, dir)
	require.Len(t, corpus.Entries, 2)
	for _, tt := range []struct {
		threads int
		want    string
	}{{2, "b-two-threads.json"}, {3, "a-three-threads.json"}, {4, "a-three-threads.json"}} {
		for range 2 {
			cfg := check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, tt.threads), Atomicity: model.GIL, Strategy: check.StrategyDFS, Corpus: corpus}
			rep, err := check.Explore(cfg)
			require.NoError(t, err)
			require.Equal(t, filepath.Join(dir, tt.want), rep.Corpus, "%d threads", tt.threads)
			require.Equal(t, 2, rep.CorpusRun.Applied)
		}
	}
}

// sequential is the schedule that runs each thread of prog to its end
// before the next, the lowest-numbered runnable first: naive's race
// needs a switch, so it ends without a violation.
func sequential(t *testing.T, prog *model.Program) []int {
	t.Helper()
	w := model.New(prog)
	var out []int
	for {
		next := -1
		for n := range w.NumThreads() {
			if w.Status(n) == sched.Runnable {
				next = n
				break
			}
		}
		if next < 0 {
			return out
		}
		w.Step(next)
		out = append(out, next)
	}
}

// TestCorpusNeverDecidesAlone: an entry whose schedule fits the scenario
// but ends without a violation, or does not fit it, leaves the search to
// run as without a corpus; and no corpus turns a variant's verdict into
// another: every golden schedule, relabelled as a correct variant's, in
// every atomicity mode, leaves its verdict as it was.
func TestCorpusNeverDecidesAlone(t *testing.T) {
	naive := protocol(t, "naive")
	sc := mergedScenario(t, 2)
	prog, err := model.NewProgram(sc, naive, model.GIL)
	require.NoError(t, err)
	clean := *goldenTrace(t, "naive-gil-2-threads.json")
	clean.Schedule = sequential(t, prog)
	misfit := goldenTrace(t, "naive-gil-2-threads.json")
	misfit.Schedule = misfit.Schedule[:5]
	corpus := readCorpus(t, writeCorpus(t, map[string]*check.Trace{"clean.json": &clean, "misfit.json": misfit}))

	cfg := check.Config{Protocol: naive, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS}
	without, err := check.Explore(cfg)
	require.NoError(t, err)
	cfg.Corpus = corpus
	with, err := check.Explore(cfg)
	require.NoError(t, err)
	require.Empty(t, with.Corpus)
	require.Equal(t, check.CorpusRun{Dir: corpus.Dir, Entries: 2, Applied: 2, Replayed: 1}, *with.CorpusRun)
	require.Equal(t, without.Result, with.Result, "the search did not run as without a corpus")
	require.Contains(t, with.CorpusRun.String(), "1 fit this scenario, none ends in a violation, so the search ran")

	all := readCorpus(t, goldenDir)
	for _, v := range variants.All() {
		if v.Expected == variants.Buggy {
			continue
		}
		for _, a := range check.TableAtomicities {
			t.Run(v.Protocol.Name+"-"+a.String(), func(t *testing.T) {
				relabelled := &check.Corpus{Dir: all.Dir}
				for _, e := range all.Entries {
					data, err := os.ReadFile(e.Path)
					require.NoError(t, err)
					s, err := check.ReadReplay(data)
					require.NoError(t, err)
					s.Protocol, s.Atomicity = v.Protocol, a
					relabelled.Entries = append(relabelled.Entries, check.CorpusEntry{Path: e.Path, Schedule: s})
				}
				cfg := check.Config{Protocol: v.Protocol, Scenario: sc, Atomicity: a, Strategy: check.StrategyStates}
				want, err := check.Explore(cfg)
				require.NoError(t, err)
				cfg.Corpus = relabelled
				got, err := check.Explore(cfg)
				require.NoError(t, err)
				require.Equal(t, len(all.Entries), got.CorpusRun.Applied)
				require.Empty(t, got.Corpus)
				require.Equal(t, want.Result.Verdict, got.Result.Verdict)
				require.Equal(t, want.Result.Stats.States, got.Result.Stats.States)
			})
		}
	}
}

// TestReadCorpus: the *.json files of a directory, in name order; a file
// that is not a trace.json of this format is left out and named, with
// why; a directory that does not exist is an error.
func TestReadCorpus(t *testing.T) {
	seed := goldenTrace(t, "naive-gil-2-threads.json")
	dir := writeCorpus(t, map[string]*check.Trace{"b.json": seed, "a.json": seed})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not read"), 0o644))
	var old bytes.Buffer
	require.NoError(t, seed.WriteJSON(&old))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.json"), regexp.MustCompile(`"format": [0-9]+,`).ReplaceAll(old.Bytes(), []byte(`"format": 9,`)), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d.json"), 0o755))

	c := readCorpus(t, dir)
	var names []string
	for _, e := range c.Entries {
		names = append(names, filepath.Base(e.Path))
	}
	require.Equal(t, []string{"a.json", "b.json"}, names)
	require.Len(t, c.Unread, 3)
	require.Contains(t, c.Unread[0], "broken.json: not a trace.json")
	require.Contains(t, c.Unread[1], "c.json: the trace is of format 9")
	require.Contains(t, c.Unread[2], "d.json: not a file")

	_, err := check.ReadCorpus(filepath.Join(dir, "nosuch"))
	require.ErrorContains(t, err, "nosuch: no such file or directory")

	t.Run("a file whose head reads but not the rest", func(t *testing.T) {
		// the head names naive and gil: the file is read whole, and
		// named, when a search of naive under gil needs it
		broken := bytes.Replace(old.Bytes(), []byte(`"schedule": [`), []byte(`"schedule": [x`), 1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "e.json"), broken, 0o644))
		c := readCorpus(t, dir)
		require.Len(t, c.Unread, 3)
		require.Len(t, c.Entries, 3)
		cfg := check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, 2), Atomicity: model.GIL, Strategy: check.StrategyDFS, Corpus: c}
		rep, err := check.Explore(cfg)
		require.NoError(t, err)
		require.Equal(t, filepath.Join(dir, "a.json"), rep.Corpus)
		require.Len(t, rep.CorpusRun.Unreadable, 1)
		require.Contains(t, rep.CorpusRun.Unreadable[0], "e.json: not a trace.json: invalid character 'x'")
		require.Equal(t, 2, rep.CorpusRun.Applied)
		require.Contains(t, rep.CorpusRun.String(), "(4 files not read)")
		cfg.Protocol = protocol(t, "merged")
		rep, err = check.Explore(cfg)
		require.NoError(t, err)
		require.Empty(t, rep.CorpusRun.Unreadable, "a file of another protocol was read whole")
	})
}

// TestCorpusAfterBadInput: a configuration the search would refuse is
// refused before the corpus could answer it.
func TestCorpusAfterBadInput(t *testing.T) {
	cfg := check.Config{Protocol: protocol(t, "naive"), Scenario: mergedScenario(t, 2), Atomicity: model.GIL,
		Strategy: check.StrategyBounded, Preemptions: -1, Corpus: readCorpus(t, goldenDir)}
	_, err := check.Explore(cfg)
	require.ErrorContains(t, err, "bounded needs -preemptions of at least 0")
	cfg.Strategy = "nosuch"
	_, err = check.Explore(cfg)
	require.ErrorContains(t, err, `unknown strategy "nosuch"`)
}
