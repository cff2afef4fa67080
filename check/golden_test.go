package check_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
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
	{"naive-gil-2-threads", "naive", 2, model.GIL, "-protocol naive -threads 2"},
	{"refcount-del-gil-2-threads", "refcount-del", 2, model.GIL, "-protocol refcount-del -threads 2"},
	{"refcount-unregistered-free-threaded-2-threads", "refcount-unregistered", 2, model.FreeThreaded, "-atomicity free-threaded -protocol refcount-unregistered -threads 2"},
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
			rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: tc.atomicity, Strategy: check.StrategyDFS})
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
				require.Equal(t, string(want), got.String(),
					"%s differs from the trace; if the change is intended, refresh it with:\n\t%s\nand review the diff", path, goldenRefresh)
			}
		})
	}
}
