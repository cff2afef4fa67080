package cli_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// TestVerdictTableIsCurrent checks that docs/verdicts.md's verdict table is
// what "explore -table" prints today.
func TestVerdictTableIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../../docs/verdicts.md")
	require.NoError(t, err)
	readme := string(b)
	const begin, end = "<!-- verdict-table:begin -->\n", "<!-- verdict-table:end -->"
	_, rest, ok := strings.Cut(readme, begin)
	require.True(t, ok, "docs/verdicts.md lacks %q", begin)
	table, _, ok := strings.Cut(rest, end)
	require.True(t, ok, "docs/verdicts.md lacks %q", end)

	var out, errOut bytes.Buffer
	require.Equal(t, cli.ExitOK, cli.Run([]string{"-table"}, &out, &errOut), errOut.String())
	if *update && out.String() != table {
		i := strings.Index(readme, begin) + len(begin)
		fresh := readme[:i] + out.String() + readme[i+len(table):]
		require.NoError(t, os.WriteFile("../../../docs/verdicts.md", []byte(fresh), 0o644))
		t.Log("rewrote docs/verdicts.md's verdict table: review the diff")
		return
	}
	require.Equal(t, out.String(), table,
		"docs/verdicts.md's verdict table is stale: rewrite it with go test ./cmd/explore/cli -run 'TestScenarioFiles|TestVerdictTableIsCurrent' -update (or paste go run ./cmd/explore -table between the markers)")
}

// readREADME returns the repository's README.md.
func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	return string(b)
}
