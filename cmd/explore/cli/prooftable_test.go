package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// TestProposedFixTable runs every cell of docs/proposed_fix.md's table
// "The world it is verified in" again (proposed, on the row's scenario,
// in the column's atomicity mode) and checks the verdict and the states
// the cell states, so that the page's figures are what explore finds
// today; the times are the run's that made the table, not checked.
func TestProposedFixTable(t *testing.T) {
	b, err := os.ReadFile("../../../docs/proposed_fix.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "## The world it is verified in")
	require.True(t, ok)
	lines := strings.Split(section, "\n")
	var modes []string
	row := regexp.MustCompile("^\\| `([^`]+)` \\|(.*)\\|$")
	cell := regexp.MustCompile(`^ (\S+), (\d+) states, [0-9.]+ ms $`)
	checked := 0
	for _, line := range lines {
		if strings.HasPrefix(line, "| scenario |") {
			for _, m := range strings.Split(strings.Trim(line, "| "), "|")[1:] {
				modes = append(modes, strings.TrimSpace(m))
			}
			continue
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			if checked > 0 && !strings.HasPrefix(line, "|") {
				break // the table ended
			}
			continue
		}
		args := strings.Fields(m[1])
		if strings.HasSuffix(m[1], ".txt") {
			args = []string{"-scenario", "testdata/scenarios/" + m[1]}
		}
		cells := strings.Split(m[2], "|")
		require.Len(t, cells, len(modes), "row %s", m[1])
		for i, c := range cells {
			want := cell.FindStringSubmatch(c)
			require.NotNil(t, want, "row %s, %s: %q is not \"VERDICT, N states, T ms\"", m[1], modes[i], c)
			t.Run(m[1]+"/"+modes[i], func(t *testing.T) {
				var sum struct {
					Verdict string
					States  int64
				}
				summaryOf(t, append([]string{"-protocol", "proposed", "-atomicity", modes[i]}, args...), &sum)
				require.Equal(t, want[1], sum.Verdict)
				require.Equal(t, want[2], strconv.FormatInt(sum.States, 10), "states; rerun scripts/proposed-table.sh and paste its rows")
			})
			checked++
		}
	}
	require.Greater(t, checked, 40, "the table was not found or has few cells")
}

// summaryOf runs explore with args from the repository's root, as a page's
// command runs, and decodes its -json summary into sum.
func summaryOf(t *testing.T, args []string, sum any) {
	t.Helper()
	t.Chdir("../../..")
	var stdout, stderr bytes.Buffer
	cli.Run(append(args, "-json", "-quiet"), &stdout, &stderr)
	require.NoError(t, json.Unmarshal(stdout.Bytes(), sum), stderr.String())
}
