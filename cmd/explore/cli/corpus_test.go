package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// goldenCorpus is the golden traces, seen from this package's directory.
var goldenCorpus = filepath.Join("..", "..", "..", "check", "testdata", "golden")

// TestCorpusFlag: -corpus DIR replays the known counterexamples before
// the search: a pct run that misses naive's race alone reports it from
// the corpus, naming the file on stdout, on stderr and in summary.json,
// and its -out files replay to the same trace, and pct's guarantee is
// not printed (pct never ran); -corpus= searches alone, and so does a run
// without -corpus (no corpus by default); a -corpus that does not exist is
// bad input; a shard part has none.
func TestCorpusFlag(t *testing.T) {
	pct := []string{"-protocol", "naive", "-strategy", "pct", "-runs", "100", "-seed", "1", "-quiet"}

	alone := explore(t, append(pct, "-corpus=")...)
	require.Equal(t, cli.ExitOK, alone.code, alone.stderr)
	require.NotContains(t, alone.stderr, "corpus")
	byDefault := explore(t, pct...)
	require.Equal(t, alone.code, byDefault.code, "a run without -corpus read one: %s", byDefault.stderr)
	require.NotContains(t, byDefault.stderr, "corpus")
	require.Contains(t, byDefault.stdout+byDefault.stderr, "pct: each run finds a bug")

	dir := filepath.Join(t.TempDir(), "out")
	r := explore(t, append(pct, "-corpus", goldenCorpus, "-out", dir)...)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stdout, "\nfound in the corpus, before any search:\n    "+goldenCorpus+string(filepath.Separator))
	require.Regexp(t, `(?m)^explore: corpus `+goldenCorpus+`: \d+ entries, \d+ of this protocol and atomicity; \S+\.json replays to a violation on this scenario, so no search ran$`, r.stderr)
	require.Contains(t, r.stderr, "1 execution,")
	require.NotContains(t, r.stdout+r.stderr, "pct: each run", "the corpus answered, yet pct's guarantee is printed as if it had run")
	files := readFiles(t, dir, "trace.txt", "summary.json")
	var s check.Summary
	require.NoError(t, json.Unmarshal([]byte(files["summary.json"]), &s))
	require.True(t, strings.HasPrefix(s.Corpus, goldenCorpus), s.Corpus)
	require.Equal(t, "violation", s.Verdict)
	for _, f := range []string{"schedule.txt", "trace.json"} {
		replayed := explore(t, "-replay", filepath.Join(dir, f))
		require.Equal(t, cli.ExitViolation, replayed.code, replayed.stderr)
		require.Equal(t, files["trace.txt"], strings.ReplaceAll(replayed.stdout, filepath.Join(dir, f), filepath.Join(dir, "schedule.txt")), "-replay %s prints another trace", f)
	}

	t.Run("a corpus that does not exist", func(t *testing.T) {
		r := explore(t, append(pct, "-corpus", "nosuch")...)
		require.Equal(t, cli.ExitUsage, r.code)
		require.Equal(t, "explore: -corpus: nosuch: no such file or directory\n", r.stderr)
	})
	t.Run("not for a shard", func(t *testing.T) {
		r := explore(t, "-protocol", "naive", "-shard", "0/2", "-corpus", goldenCorpus, "-quiet")
		require.NotContains(t, r.stderr, "corpus")
		require.NotContains(t, r.stdout, "found in the corpus")
	})
}
