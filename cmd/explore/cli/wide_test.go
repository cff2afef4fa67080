package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
	"swapcheck/internal/testenv"
)

// A block wider than 128 threads, in a world the proof for every N
// treats, is answered by that proof when the strategy is auto: verified at
// N, saying by what. Where the proof does not prove it (naive, refuted at
// 2), the search of the N threads follows and finds the counterexample;
// 128 threads or fewer search the N threads without the proof.
// TestWideBlockByProofElsewhere has the other cases (-json, two blocks,
// -out, -strategy por), with SWAPCHECK_LONG=1.
func TestWideBlockByProof(t *testing.T) {
	r := explore(t, "-protocol", "proposed", "-threads", "1024")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "proposed, gil, -threads 1024: one host, one launch of one block, no faults\n")
	require.Contains(t, r.stdout, "verified at N = 1024 threads per block by the proof for every N (docs/every-n.md; -strategy por searches the 1024 threads one by one): verified for every number of threads per block (N >= 1)")
	require.Contains(t, r.stderr, "explore: proposed: verified at 1024 threads per block by the proof for every N in ")

	r = explore(t, "-protocol", "naive", "-threads", "200")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stderr, "explore: 200 threads: the proof for every N did not prove it (refuted at N = 2 threads per block, the smallest (use-saw-real)); searching the 200 threads\n")
	require.Contains(t, r.stdout, "verdict: violation use-saw-real")

	args := []string{"-protocol", "proposed", "-threads", "128", "-timeout", "1s"}
	r = explore(t, args...)
	require.NotContains(t, r.stdout+r.stderr, "the proof for every N", args)
	require.NotEqual(t, cli.ExitUsage, r.code, "%v: %s", args, r.stderr)
}

// The rest of TestWideBlockByProof's cases, each a search of seconds:
// -json says what the proof said; where the proof does not treat the
// world (two blocks) or does not read a flag (-out), the search of the N
// threads follows and finds the counterexample; -strategy por searches
// the N threads without the proof. Long: runs with SWAPCHECK_LONG=1.
func TestWideBlockByProofElsewhere(t *testing.T) {
	if !testenv.Long() {
		t.Skip("long (the proof and searches of wide blocks, seconds each): runs with SWAPCHECK_LONG=1")
	}
	r := explore(t, "-protocol", "proposed", "-threads", "1024", "-json")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	var j struct {
		Verdict  string `json:"verdict"`
		Complete bool   `json:"complete"`
		Threads  int    `json:"threads"`
		By       string `json:"by"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j), r.stdout)
	require.Equal(t, "verified", j.Verdict)
	require.True(t, j.Complete)
	require.Equal(t, 1024, j.Threads)
	require.Equal(t, "every-n", j.By)

	r = explore(t, "-protocol", "naive", "-threads", "130", "-blocks", "2")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stderr, "explore: 130 threads: the proof for every N does not treat this world (")
	require.Contains(t, r.stdout, "verdict: violation use-saw-real")

	r = explore(t, "-protocol", "naive", "-threads", "130", "-out", t.TempDir()+"/out")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stderr, "explore: 130 threads: the proof for every N does not read -out; searching the 130 threads")

	args := []string{"-protocol", "proposed", "-threads", "200", "-strategy", "por", "-timeout", "1s"}
	r = explore(t, args...)
	require.NotContains(t, r.stdout+r.stderr, "the proof for every N", args)
	require.NotEqual(t, cli.ExitUsage, r.code, "%v: %s", args, r.stderr)
}

// A -timeout the proof uses up leaves no time for the search of the N
// threads: incomplete (exit 3), saying so, not verified.
func TestWideBlockProofTimesOut(t *testing.T) {
	// gil-breaker: under gil, merged's sections prove the 200 threads
	// without the proof
	r := explore(t, "-protocol", "merged", "-atomicity", "gil-breaker", "-threads", "200", "-timeout", "300ms")
	require.Equal(t, cli.ExitIncomplete, r.code, r.stderr)
	require.Contains(t, r.stdout, "incomplete at N = 200: the proof for every N used up -timeout before the search of the 200 threads could start")
	require.NotContains(t, r.stdout, "verified at")
}

// The proof's answer for a wide block is the search's: at 129 threads,
// the smallest the proof answers, merged under gil-breaker is verified
// both ways. Long: the search takes about 4 s.
func TestWideBlockAgreesWithTheSearch(t *testing.T) {
	if !testenv.Long() {
		t.Skip("long: runs with SWAPCHECK_LONG=1")
	}
	args := []string{"-protocol", "merged", "-atomicity", "gil-breaker", "-threads", "129"}
	byProof := explore(t, args...)
	require.Equal(t, cli.ExitOK, byProof.code, byProof.stderr)
	require.Contains(t, byProof.stdout, "verified at N = 129 threads per block by the proof for every N")
	bySearch := explore(t, append(args, "-strategy", "por")...)
	require.Equal(t, cli.ExitOK, bySearch.code, bySearch.stderr)
	require.NotContains(t, bySearch.stdout+bySearch.stderr, "the proof for every N")
	require.Contains(t, bySearch.stdout, "verified")
}
