package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"swapcheck/internal/testenv"
	"testing"

	"github.com/stretchr/testify/require"
)

// -replay-random N replays N random walks and tallies them against the
// model's: merged's walks of aborted-launch.txt, with and without a
// violation, all agree; -out keeps the scripts and their outputs.
func TestReplayRandom(t *testing.T) {
	py := testenv.Python311(t)
	out := filepath.Join(t.TempDir(), "walks")
	r := explore(t, "-replay-random", "3", "-seed", "40", "-protocol", "merged", "-scenario", "../../../testdata/scenarios/aborted-launch.txt",
		"-python", py, "-out", out)
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "replay-random: merged, atomicity gil, ../../../testdata/scenarios/aborted-launch.txt: 3 random walks (3 seeds from 40)")
	require.Contains(t, r.stdout, "the replay agrees with the model: 3\n")
	require.Contains(t, r.stdout, "verdict: the replay agrees with the model on 3 of 3 walks\n")
	for _, name := range []string{"seed-40.py", "seed-40.txt", "seed-42.py", "seed-42.txt"} {
		require.FileExists(t, filepath.Join(out, name))
	}
	b, err := os.ReadFile(filepath.Join(out, "seed-41.txt"))
	require.NoError(t, err)
	require.Contains(t, string(b), "replay: all ")

	r = explore(t, "-replay-random", "1", "-seed", "40", "-protocol", "merged", "-scenario", "../../../testdata/scenarios/aborted-launch.txt",
		"-python", py, "-out", out)
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "already holds seed-40.py; pass -force")
}

// -replay-random's bad input is one line and exit status 2.
func TestReplayRandomRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-replay-random", "0", "-protocol", "merged"}, "-replay-random must be 1..100000, got 0"},
		{[]string{"-replay-random", "2", "-protocol", "merged", "-swap", "rendition"}, "-swap applies to -target numba"},
		{[]string{"-replay-random", "2", "-protocol", "merged", "-target", "cuda"}, `unknown -target "cuda"`},
		{[]string{"-replay-random", "2", "-protocol", "merged", "-strategy", "dfs"}, "-replay-random N and -strategy both given"},
		{[]string{"-replay-random", "2", "-protocol", "merged", "-python", "/nonexistent/python"}, "-python /nonexistent/python"},
		{[]string{"-protocol", "merged", "-python", "python3"}, "-python needs -source FILE[:NAME] or -replay-random N"},
		{[]string{"-replay-random", "2", "-protocol", "merged", "-atomicity", "free-threaded"}, "a GIL build cannot run a -atomicity free-threaded interleaving"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := explore(t, tc.args...)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, tc.want)
		})
	}
}

// merged-fix's walks replay on the stand-in, whose kernel.py carries
// merged-fix's patch (testdata/merged-fix/kernel-edits.json). Two walks
// guard two fixes: interrupt.txt's seed 2 lands an interrupt where the
// listing once claimed a check after line 27's test with the count 0
// (the and short-circuits, any() is never called: model.Ctx.NoCheck),
// and two-hosts-interrupt.txt's seed 12 ends with _swap_refcount[gid] =
// 0, which the script once judged a leftover where the model
// (Protocol.ZeroCountIsMissing) does not.
func TestReplayRandomOfMergedFix(t *testing.T) {
	py := testenv.Python311(t)
	for _, tc := range []struct {
		file string
		seed string
	}{
		{"interrupt.txt", "2"},
		{"two-hosts-interrupt.txt", "12"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := explore(t, "-replay-random", "1", "-seed", tc.seed, "-protocol", "merged-fix",
				"-scenario", "../../../testdata/scenarios/"+tc.file, "-python", py)
			require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stdout, "verdict: the replay agrees with the model on 1 of 1 walks\n", r.stdout)
		})
	}
}
