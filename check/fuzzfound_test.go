package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

// The defects FuzzSummary found, each pinned by a seed under
// testdata/fuzz/FuzzSummary/ and by a test here.

// TestMergeSummariesOfAHugeShardCount: a part of a search split into 10^12
// shards merges at once, saying how many are missing and naming the first
// few, rather than walking (and listing) every missing one.
func TestMergeSummariesOfAHugeShardCount(t *testing.T) {
	part := mergePart
	part.Shard = "1/1000000000000"
	type merged struct {
		s   check.Summary
		err error
	}
	done := make(chan merged, 1)
	go func() {
		s, err := check.MergeSummaries([]check.Summary{part})
		done <- merged{s, err}
	}()
	select {
	case m := <-done:
		require.NoError(t, m.err)
		got := m.s
		require.Equal(t, "incomplete", got.Verdict)
		require.Equal(t, "missing shards: 0, 2, 3, 4, 5, 6, 7, 8, ... (999999999999 in all)", got.Stopped)
		require.Equal(t, "merged 1 of 1000000000000", got.Shard)
	case <-time.After(10 * time.Second):
		t.Fatal("MergeSummaries of one part of 10^12 shards did not return within 10s")
	}
}

// TestSummaryVersionReachesErrorsQuoted: the writer's version, read from
// summary.json, reaches an error quoted when it holds a control character,
// so the error stays one line and cannot drive the terminal.
func TestSummaryVersionReachesErrorsQuoted(t *testing.T) {
	t.Run("another format", func(t *testing.T) {
		_, err := check.ReadSummary([]byte(`{"format": 3, "version": "\u001b[2J\n"}`))
		require.EqualError(t, err, `the summary is of format 3 (written by explore "\x1b[2J\n"), but explore `+check.Version+` reads formats 1 and 2`)
	})
	t.Run("parts of two versions", func(t *testing.T) {
		part := mergePart
		part.Shard, part.Version = "0/2", "0.0.1\n\x1b[2J"
		_, err := check.MergeSummaries([]check.Summary{part, mergePart})
		require.EqualError(t, err, `shard 1/2 was written by explore `+check.Version+`, but shard 0/2 by explore "0.0.1\n\x1b[2J": run every part with one version`)
	})
}
