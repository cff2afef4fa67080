package check_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
)

var update = flag.Bool("update", false, "rewrite the golden traces under testdata/golden from the current output")

// goldenRefresh is the command that rewrites the golden traces.
const goldenRefresh = "go test ./check -run TestGolden -update"

// goldenCases are the traces kept under testdata/golden: each is what
// "go run ./cmd/explore ARGS" prints, ARGS being the case's command line.
var goldenCases = []struct {
	name      string
	protocol  string
	threads   int
	atomicity model.Atomicity
	// args is the command line that prints the same trace, as the command
	// spells it in its replay line (flags in alphabetical order).
	args string
}{
	{"naive-gil-2-threads", "naive", 2, model.GIL, "-protocol naive -strategy dfs -threads 2"},
	{"refcount-del-gil-2-threads", "refcount-del", 2, model.GIL, "-protocol refcount-del -strategy dfs -threads 2"},
	{"refcount-unregistered-free-threaded-overwrite-2-threads", "refcount-unregistered", 2, model.FreeThreadedOverwrite, "-atomicity free-threaded-overwrite -protocol refcount-unregistered -strategy dfs -threads 2"},
}

// TestGolden compares the counterexample traces with the files under
// testdata/golden, byte for byte. After an intended change, rewrite them
// with "go test ./check -run TestGolden -update" and review the diff.
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := check.Lookup(tc.protocol)
			require.NoError(t, err)
			sh := model.DefaultShape
			sh.Threads = tc.threads
			sc, err := sh.Build()
			require.NoError(t, err)
			// shrunk, as the command prints it by default
			rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Shape: &sh, Shrink: true, Atomicity: tc.atomicity, Strategy: check.StrategyDFS})
			require.NoError(t, err)
			require.NotNil(t, rep.Result.Failure, "%s found no violation: nothing to trace", tc.name)
			var got bytes.Buffer
			require.NoError(t, check.WriteTrace(&got, rep, "go run ./cmd/explore "+tc.args))

			path := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden trace; create it with: %s", goldenRefresh)
			if !bytes.Equal(want, got.Bytes()) {
				t.Fatalf("%s differs from the trace %s\nIf the change is intended, refresh the golden files and review them as a diff:\n\t%s && git diff %s",
					path, firstDifference(string(want), got.String()), goldenRefresh, filepath.Join("check", "testdata", "golden"))
			}
		})
	}
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
