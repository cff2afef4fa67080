package bugreport_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden reports under testdata from the current output")

const goldenRefresh = "go test ./bugreport -run TestGolden -update"

// reportCases are the golden reports: the seed's race, a refcount
// variant's exception, merged's aborted launch (two launches, a raising
// kernel), and the simulator's other two races (atomics of different
// kinds, a shared array two threads both allocate); the atomics' race
// again around proposed, swapcheck's own code, whose report has no
// numba-cuda line. The refcount variant's gil trace switches where
// CPython 3.11 cannot, so its report shows gil-breaker's.
var reportCases = []struct {
	name, protocol, file string // file: a file under testdata/scenarios, or "" for -threads 2
	atomicity            model.Atomicity
	repro                string
	shape                *scenario.Shape // the flags' shape, searched with the default strategy
}{
	{"naive-gil-2-threads", "naive", "", model.GIL, "go run ./cmd/explore -protocol naive -strategy dfs -threads 2", nil},
	{"refcount-del-gil-2-threads", "refcount-del", "", model.GIL, "go run ./cmd/explore -protocol refcount-del -strategy dfs -threads 2", nil},
	{"merged-gil-aborted-launch", "merged", "aborted-launch.txt", model.GIL, "go run ./cmd/explore -protocol merged -scenario testdata/scenarios/aborted-launch.txt -strategy dfs", nil},
	{"naive-gil-atomics-add-sub", "naive", "", model.GIL, "go run ./cmd/explore -protocol naive -atomics add,sub -calls 0", atomicsShape},
	{"merged-gil-shared-array", "merged", "", model.GIL, "go run ./cmd/explore -protocol merged -shared -calls 0", sharedShape},
	{"proposed-gil-atomics-add-sub", "proposed", "", model.GIL, "go run ./cmd/explore -protocol proposed -atomics add,sub -calls 0", atomicsShape},
}

// The flags' shapes of the simulator's other races, reported as the CLI
// reports them by default (strategy auto, shrunk).
var (
	atomicsShape = &scenario.Shape{Threads: 2, Blocks: 1, Modules: 1, Names: 1, Atomics: []scenario.AtomicOp{scenario.AtomicAdd, scenario.AtomicSub}}
	sharedShape  = &scenario.Shape{Threads: 2, Blocks: 1, Modules: 1, Names: 1, Shared: true}
)

func report(t *testing.T, protocol, file string, a model.Atomicity, flags *scenario.Shape) *check.Report {
	t.Helper()
	p, err := check.Lookup(protocol)
	require.NoError(t, err)
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	if file != "" {
		f, err := os.Open(filepath.Join("..", "testdata", "scenarios", file))
		require.NoError(t, err)
		defer f.Close()
		sc, err = scenario.Parse(f)
		require.NoError(t, err)
	}
	// a shape's counterexample shrunk, as its repro line prints it by
	// default; a scenario file's as the search found it, which keeps
	// the aborted launch's two launches (threads named L1.B0.T1) that
	// this case is here for
	cfg := check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: check.StrategyDFS}
	if file == "" {
		shape := scenario.DefaultShape
		cfg.Shape, cfg.Shrink = &shape, true
	}
	if flags != nil {
		sc, err = flags.Build()
		require.NoError(t, err)
		cfg = check.Config{Protocol: p, Scenario: sc, Atomicity: a, Shape: flags, Shrink: true}
	}
	rep, err := check.Explore(cfg)
	require.NoError(t, err)
	require.NotNil(t, rep.Result.Failure, "%s on %q: no violation to report", protocol, file)
	return rep
}

// goldenFormats are the renderings kept as golden files, by extension.
var goldenFormats = []struct {
	ext   string
	write func(io.Writer, *check.Report, string) error
}{
	{".md", bugreport.Write},
	{".html", bugreport.WriteHTML},
}

// TestGolden compares the reports with testdata/NAME.md and the pages
// with testdata/NAME.html byte for byte; after an intended change,
// rewrite them with "go test ./bugreport -run TestGolden -update" and
// review the diff.
func TestGolden(t *testing.T) {
	for _, tc := range reportCases {
		rep := report(t, tc.protocol, tc.file, tc.atomicity, tc.shape)
		for _, f := range goldenFormats {
			t.Run(tc.name+f.ext, func(t *testing.T) {
				golden(t, tc.name+f.ext, rep, tc.repro, f.write)
			})
		}
	}
}

// golden compares what write renders of rep with testdata/name.
func golden(t *testing.T, name string, rep *check.Report, repro string, write func(io.Writer, *check.Report, string) error) {
	t.Helper()
	var got bytes.Buffer
	require.NoError(t, write(&got, rep, repro))
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; create it with: %s", goldenRefresh)
	require.Equal(t, string(want), got.String(), "%s differs from the rendering; if the change is intended: %s && git diff bugreport/testdata", path, goldenRefresh)
}
