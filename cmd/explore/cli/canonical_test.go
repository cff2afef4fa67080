package cli_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
	"swapcheck/internal/testenv"
)

// The default search prints the same counterexample on every run, with
// several workers, whichever found one first: refcount-del with 10
// threads printed 4 different traces in 6 runs. (Its replay line names
// the flags, so the runs must be given the same.) Three runs by default,
// five with SWAPCHECK_LONG=1.
func TestDefaultSearchPrintsTheSameTraceEveryRun(t *testing.T) {
	args := []string{"-protocol", "refcount-del", "-threads", "10", "-workers", "4", "-quiet"}
	first := explore(t, args...)
	require.Equal(t, cli.ExitViolation, first.code, first.stderr)
	more := 2
	if testenv.Long() {
		more = 4
	}
	for range more {
		again := explore(t, args...)
		require.Equal(t, cli.ExitViolation, again.code, again.stderr)
		require.Equal(t, first.stdout, again.stdout, again.stderr)
	}
}
