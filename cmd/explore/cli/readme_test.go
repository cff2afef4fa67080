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
	require.Equal(t, out.String(), table,
		"docs/verdicts.md's verdict table is stale: replace it with the output of go run ./cmd/explore -table")
}

// readREADME returns the repository's README.md.
func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	return string(b)
}
