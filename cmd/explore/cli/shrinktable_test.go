package cli_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShrinkingTable runs every row of docs/shrinking.md's table again
// and checks the violation kind, what shrinking made smaller and how many
// searches it took, so that the page's figures are what explore does
// today; the times are the run's that made the table, not checked.
func TestShrinkingTable(t *testing.T) {
	b, err := os.ReadFile("../../../docs/shrinking.md")
	require.NoError(t, err)
	row := regexp.MustCompile("^\\| `([^`]+)` \\| `([^`]+)` \\| (.+) \\| (\\d+) \\| [0-9.]+ \\|$")
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		t.Run(m[1], func(t *testing.T) {
			var sum struct {
				Violation struct{ Kind string }
				Shrunk    struct {
					Text     string
					Searches int
				}
			}
			summaryOf(t, strings.Fields(m[1]), &sum)
			require.Equal(t, m[2], sum.Violation.Kind)
			require.Equal(t, m[3], sum.Shrunk.Text, "rerun scripts/shrink-table.sh and paste its rows")
			require.Equal(t, m[4], strconv.Itoa(sum.Shrunk.Searches))
		})
	}
	require.Greater(t, rows, 10, "the table was not found")
}
