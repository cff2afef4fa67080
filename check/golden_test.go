package check_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/variants"
)

var update = flag.Bool("update", false, "rewrite the golden traces under testdata/golden from the current output")

// goldenRefresh is the command that rewrites the golden traces.
const goldenRefresh = "go test ./check -run TestGolden -update"

// goldenDir holds the golden traces: NAME.txt (the trace explore prints)
// and NAME.json (its trace.json) for every case of goldenCases.
var goldenDir = filepath.Join("testdata", "golden")

// goldenCase is one counterexample kept under testdata/golden.
type goldenCase struct {
	name string // variant-atomicity-scenario, as "naive-gil-2-threads"
	rep  *check.Report
	// args is the command line that prints the same trace, as the
	// command spells it in its replay line (flags in alphabetical order).
	args string
}

// goldenCases are the counterexamples of the README's verdict table: every
// buggy variant of the registry on every scenario of check.TableShapes in
// every atomicity mode where the exhaustive search (dfs) finds a
// violation. A buggy variant without any is a failure, not an empty list.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	var cases []goldenCase
	for _, v := range variants.All() {
		if v.Expected != variants.Buggy {
			continue
		}
		found := 0
		for _, ts := range check.TableShapes {
			sc, err := ts.Shape.Build()
			require.NoError(t, err)
			sh := ts.Shape // shrunk, as the command prints it by default
			for _, a := range check.TableAtomicities {
				rep, err := check.Explore(check.Config{Protocol: v.Protocol, Scenario: sc, Shape: &sh, Shrink: true, Atomicity: a, Strategy: check.StrategyDFS})
				require.NoError(t, err)
				if rep.Result.Failure == nil {
					continue
				}
				found++
				cases = append(cases, goldenCase{
					name: fmt.Sprintf("%s-%s-%s", v.Protocol.Name, a, scenarioSlug(ts.Flags)),
					rep:  rep,
					args: commandLine(v.Protocol.Name, a, ts.Flags),
				})
			}
		}
		require.NotZero(t, found, "%s is registered as buggy, but no scenario of the verdict table shows a violation", v.Protocol.Name)
	}
	return cases
}

// scenarioSlug names a scenario by its flags: "-threads 2 -calls 2
// -syncthreads" is "2-threads-2-calls-syncthreads".
func scenarioSlug(flags string) string {
	var parts []string
	fields := strings.Fields(flags)
	for i := 0; i < len(fields); i++ {
		name := strings.TrimPrefix(fields[i], "-")
		if i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-") {
			parts = append(parts, fields[i+1]+"-"+name)
			i++
			continue
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, "-")
}

// commandLine is the explore command line of a case, flags sorted by name
// as explore's replay line has them (-atomicity only when not the default).
func commandLine(protocol string, a model.Atomicity, flags string) string {
	var opts []string
	fields := strings.Fields(flags)
	for i := 0; i < len(fields); i++ {
		if i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-") {
			opts = append(opts, fields[i]+" "+fields[i+1])
			i++
			continue
		}
		opts = append(opts, fields[i])
	}
	opts = append(opts, "-protocol "+protocol, "-strategy dfs")
	if a != model.GIL {
		opts = append(opts, "-atomicity "+a.String())
	}
	sort.Strings(opts)
	return strings.Join(opts, " ")
}

// TestGolden compares the counterexample traces, as text and as
// trace.json, with the files under testdata/golden, byte for byte. After
// an intended change, rewrite them with
// "go test ./check -run TestGolden -update" and review the diff.
func TestGolden(t *testing.T) {
	cases := goldenCases(t)
	want := map[string]bool{}
	for _, tc := range cases {
		trace, err := check.NewTrace(tc.rep, "go run ./cmd/explore "+tc.args)
		require.NoError(t, err)
		var text, js bytes.Buffer
		require.NoError(t, trace.WriteText(&text))
		require.NoError(t, trace.WriteJSON(&js))
		for _, f := range []struct {
			ext string
			got []byte
		}{{".txt", text.Bytes()}, {".json", js.Bytes()}} {
			name := tc.name + f.ext
			want[name] = true
			t.Run(name, func(t *testing.T) { compareGolden(t, filepath.Join(goldenDir, name), f.got) })
		}
	}
	t.Run("no stale golden files", func(t *testing.T) {
		entries, err := os.ReadDir(goldenDir)
		require.NoError(t, err)
		for _, e := range entries {
			if want[e.Name()] {
				continue
			}
			if *update {
				require.NoError(t, os.Remove(filepath.Join(goldenDir, e.Name())))
				continue
			}
			t.Errorf("%s is no case's golden file (its violation is gone?); refresh with: %s", filepath.Join(goldenDir, e.Name()), goldenRefresh)
		}
	})
}

// compareGolden compares got with the golden file path, or rewrites it
// with -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; create it with: %s", goldenRefresh)
	if !bytes.Equal(want, got) {
		t.Fatalf("%s differs from the trace %s\nIf the change is intended, refresh the golden files and review them as a diff:\n\t%s && git diff %s",
			path, firstDifference(string(want), string(got)), goldenRefresh, filepath.Join("check", goldenDir))
	}
}

// TestGoldenCorpusReplays replays every golden trace.json, the corpus of
// known counterexamples: each still reads, names a variant, atomicity and
// scenario that exist, and replays to the very trace it holds (the search
// strategy aside: a replay's is "replay"), its text to the golden .txt.
func TestGoldenCorpusReplays(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no golden trace.json; create them with: %s", goldenRefresh)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			golden, err := check.ReadTrace(data)
			require.NoError(t, err)
			s, err := golden.Replayable()
			require.NoError(t, err)
			rep, err := check.Replay(s)
			require.NoError(t, err)
			require.NotNil(t, rep.Result.Failure, "the golden schedule no longer ends in a violation")
			require.Empty(t, s.Differs(rep))
			again, err := check.NewTrace(rep, golden.Replay)
			require.NoError(t, err)
			again.Strategy = golden.Strategy
			var js, text bytes.Buffer
			require.NoError(t, again.WriteJSON(&js))
			require.Equal(t, string(data), js.String())
			require.NoError(t, again.WriteText(&text))
			txt, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".txt")
			require.NoError(t, err)
			require.Equal(t, string(txt), text.String())
		})
	}
}

// The old three cases keep their names, which cli's TestTraceMatchesGolden
// reads.
func TestGoldenNames(t *testing.T) {
	var names []string
	for _, tc := range goldenCases(t) {
		names = append(names, tc.name)
	}
	for _, n := range []string{"naive-gil-2-threads", "refcount-del-gil-2-threads", "refcount-unregistered-free-threaded-overwrite-2-threads"} {
		require.True(t, slices.Contains(names, n), "no golden case %s among %v", n, names)
	}
	require.Equal(t, "2-threads-2-calls-syncthreads", scenarioSlug("-threads 2 -calls 2 -syncthreads"))
	require.Equal(t, "-atomicity free-threaded -calls 2 -modules 2 -protocol naive -strategy dfs -threads 2",
		commandLine("naive", model.FreeThreaded, "-threads 2 -calls 2 -modules 2"))
}

// firstDifference says where two texts first differ, by line, and how
// many lines differ in all.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	first, n := -1, 0
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	line := func(ls []string, i int) string {
		if i < len(ls) {
			return fmt.Sprintf("%q", ls[i])
		}
		return "(end of text)"
	}
	return fmt.Sprintf("(%d of %d lines differ); first at line %d:\n\tgolden: %s\n\tnow:    %s",
		n, max(len(w), len(g)), first+1, line(w, first), line(g, first))
}
