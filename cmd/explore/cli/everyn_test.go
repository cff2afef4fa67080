package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// -threads all: merged under gil-breaker is proved for every number of
// threads (exit 0, the world and the argument's figures on stdout); naive
// is refuted at 2 threads with the search's own trace (exit 1); -json
// says the same as JSON.
func TestThreadsAll(t *testing.T) {
	r := explore(t, "-protocol", "merged", "-atomicity", "gil-breaker", "-threads", "all")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "merged, gil-breaker, -threads all: one host, one launch of one block, no faults\n")
	require.Contains(t, r.stdout, "verified for every number of threads per block (N >= 1): explicit search N = 1..4, then counter abstraction")
	require.Contains(t, r.stderr, "explore: merged: verified for every number of threads per block in ")

	r = explore(t, "-protocol", "naive", "-threads", "all")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stdout, "verdict: violation use-saw-real")
	require.Contains(t, r.stdout, "go run ./cmd/explore -protocol naive -atomicity gil -threads 2")
	require.Contains(t, r.stderr, "explore: naive: refuted at N = 2 threads per block, the smallest (use-saw-real)")

	r = explore(t, "-protocol", "refcount-del", "-threads", "all", "-json")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	var j struct {
		Verdict        string `json:"verdict"`
		RefutedAt      int    `json:"refuted_at"`
		Kind           string `json:"kind"`
		ExplicitStates []int  `json:"explicit_states"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j), r.stdout)
	require.Equal(t, "refuted", j.Verdict)
	require.Equal(t, 2, j.RefutedAt)
	require.Equal(t, "exception", j.Kind)
	require.Len(t, j.ExplicitStates, 2)
}

// A -timeout that passes before the proof ends is incomplete (exit 3),
// wherever it passes, even in the explicit search for small N.
func TestThreadsAllTimeout(t *testing.T) {
	r := explore(t, "-protocol", "merged", "-threads", "all", "-timeout", "1ns")
	require.Equal(t, cli.ExitIncomplete, r.code, r.stderr)
	require.Contains(t, r.stdout, "incomplete: the timeout passed in the explicit search for N = 1\n")
}

// What -threads all cannot prove, or does not read, is refused in one line
// before any search.
func TestThreadsAllRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-protocol", "merged", "-threads", "all", "-blocks", "2"}, "this scenario has more than one block"},
		{[]string{"-protocol", "merged", "-threads", "all", "-faults", "interrupt"}, "-faults does not apply"},
		{[]string{"-protocol", "merged", "-threads", "all", "-strategy", "dfs"}, "-strategy does not apply"},
		{[]string{"-protocol", "merged", "-threads", "all", "-backend", "goroutines"}, "-backend goroutines takes a number of threads"},
		{[]string{"-protocol", "merged", "-threads", "some"}, `want a number of threads or all, got "some"`},
	} {
		r := explore(t, tc.args...)
		require.Equal(t, cli.ExitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout)
	}
}
