package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// -max-memory takes a size; a bad one is one line on stderr and exit 2,
// and so is one below memory.Minimum, which no search could keep (and one
// that ends before the first reading would verify under it).
func TestMaxMemoryRefusesBadSizes(t *testing.T) {
	for _, size := range []string{"abc", "-5MiB", "5XB", "MiB", "", "1KB", "47MiB"} {
		t.Run(size, func(t *testing.T) {
			r := explore(t, "-protocol", "merged", "-max-memory", size)
			require.Equal(t, cli.ExitUsage, r.code)
			require.Empty(t, r.stdout)
			require.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			require.Contains(t, r.stderr, "-max-memory")
		})
	}
}

// A search that reaches -max-memory (the smallest bound, on a scenario
// of some ten million states) ends incomplete, exit 3, with its summary:
// what it covered, why it stopped and what to do instead.
func TestMaxMemoryEndsTheSearchIncomplete(t *testing.T) {
	r := explore(t, "-protocol", "merged", "-threads", "4", "-calls", "3", "-modules", "3", "-nest", "1", "-strategy", "dfs", "-max-memory", "48MiB", "-timeout", "120s", "-quiet")
	require.Equal(t, cli.ExitIncomplete, r.code, r.stderr)
	require.Contains(t, r.stdout, "incomplete: the dfs search stopped (-max-memory 48 MiB reached: the process held")
	require.Contains(t, r.stdout, "-strategy states")
	require.Contains(t, r.stdout, "states, ")
	require.Contains(t, r.stderr, "explore: merged, incomplete:")
}
