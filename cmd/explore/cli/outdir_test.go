package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// TestForceNeverLeavesAMixedDirectory: -out -force replaces an earlier
// run's files as a whole. A file it could not replace is found before
// the search, and every earlier file stays as it was; a forced run whose
// verdict writes fewer files (verified after a violation) leaves none of
// the earlier run's beside its own.
func TestForceNeverLeavesAMixedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	violation := explore(t, "-protocol", "naive", "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, violation.code, violation.stderr)
	before := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		before[e.Name()] = string(data)
	}
	require.Contains(t, before, "report.md")

	t.Run("a file that cannot be replaced", func(t *testing.T) {
		// summary.json swapped for a directory, which no write replaces
		// (a read-only file would do as a user, but not as root)
		blocked := filepath.Join(dir, "summary.json")
		require.NoError(t, os.Remove(blocked))
		require.NoError(t, os.Mkdir(blocked, 0o755))
		defer func() {
			require.NoError(t, os.Remove(blocked))
			require.NoError(t, os.WriteFile(blocked, []byte(before["summary.json"]), 0o644))
		}()
		r := explore(t, "-protocol", "merged", "-out", dir, "-force", "-quiet")
		require.Equal(t, cli.ExitUsage, r.code)
		require.Regexp(t, `^explore: -out \S+: -force cannot overwrite summary.json: .*\n$`, r.stderr)
		require.Empty(t, r.stdout, "the search ran before the directory was checked")
		for name, data := range before {
			if name == "summary.json" {
				continue
			}
			got, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			require.Equal(t, data, string(got), "%s changed", name)
		}
	})

	verified := explore(t, "-protocol", "merged", "-out", dir, "-force", "-quiet")
	require.Equal(t, cli.ExitOK, verified.code, verified.stderr)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{"trace.txt", "trace.json", "trace.html", "schedule.txt", "summary.json"}, names,
		"the forced verified run left an earlier file, or a staging directory")
	trace, err := os.ReadFile(filepath.Join(dir, "trace.txt"))
	require.NoError(t, err)
	require.True(t, strings.Contains(string(trace), "verdict: verified"), "%s", trace)
}
