package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// An -out that could not be written after the search is said after the
// verdict, in one line, and never hides a violation: it exits 1 still,
// and 2 for any other verdict.
func TestExitStatusOfAFailedOut(t *testing.T) {
	fail := errors.New("-out D: disk full")
	for _, tc := range []struct {
		verdict sched.Verdict
		err     error
		want    int
	}{
		{sched.Violation, nil, ExitViolation},
		{sched.Violation, fail, ExitViolation},
		{sched.Verified, fail, ExitUsage},
		{sched.Incomplete, fail, ExitUsage},
		{sched.Verified, nil, ExitOK},
		{sched.Incomplete, nil, ExitIncomplete},
	} {
		var stderr strings.Builder
		require.Equal(t, tc.want, exitStatus(tc.verdict, tc.err, &stderr), "%s, %v", tc.verdict, tc.err)
		if tc.err != nil {
			require.Equal(t, "explore: -out D: disk full\n", stderr.String())
		} else {
			require.Empty(t, stderr.String())
		}
	}
}
