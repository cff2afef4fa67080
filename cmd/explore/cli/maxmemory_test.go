package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// -max-memory takes a size; a bad one is one line on stderr and exit 2.
func TestMaxMemoryRefusesBadSizes(t *testing.T) {
	for _, size := range []string{"abc", "-5MiB", "5XB", "MiB", ""} {
		t.Run(size, func(t *testing.T) {
			r := explore(t, "-protocol", "merged", "-max-memory", size)
			require.Equal(t, cli.ExitUsage, r.code)
			require.Empty(t, r.stdout)
			require.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			require.Contains(t, r.stderr, "-max-memory")
		})
	}
}

// A search that reaches -max-memory (this test process holds more than 1
// KiB from the start) ends incomplete, exit 3, with its summary: what it
// covered, why it stopped and what to do instead.
func TestMaxMemoryEndsTheSearchIncomplete(t *testing.T) {
	r := explore(t, "-protocol", "merged", "-threads", "5", "-strategy", "dfs", "-max-memory", "1KiB", "-quiet")
	require.Equal(t, cli.ExitIncomplete, r.code, r.stderr)
	require.Contains(t, r.stdout, "incomplete: the dfs search stopped (-max-memory 1 KiB reached: the process held")
	require.Contains(t, r.stdout, "-strategy states")
	require.Contains(t, r.stdout, "states, ")
	require.Contains(t, r.stderr, "explore: merged, incomplete:")
}
