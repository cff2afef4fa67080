package cli_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// TestTraceJSONReplays: -out writes trace.json beside trace.txt, and
// -replay reads it (told from a schedule.txt by its content) to the same
// trace as the schedule.txt beside it.
func TestTraceJSONReplays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := explore(t, "-protocol", "refcount-del", "-threads", "2", "-strategy", "dfs", "-out", dir)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	files := readFiles(t, dir, "trace.txt", "trace.json", "schedule.txt")
	tr, err := check.ReadTrace([]byte(files["trace.json"]))
	require.NoError(t, err)
	require.Equal(t, check.KindException, tr.Violation.Kind)
	require.Equal(t, "go run ./cmd/explore -replay "+filepath.Join(dir, "schedule.txt"), tr.Replay)

	fromJSON := explore(t, "-replay", filepath.Join(dir, "trace.json"))
	require.Equal(t, cli.ExitViolation, fromJSON.code, fromJSON.stderr)
	fromText := explore(t, "-replay", filepath.Join(dir, "schedule.txt"))
	require.Equal(t, cli.ExitViolation, fromText.code, fromText.stderr)
	// the same trace, but for the replay line, which names the file read
	replayLine := func(s string) string { return s[:strings.LastIndex(s, "replay: ")] }
	require.Equal(t, replayLine(files["trace.txt"]), replayLine(fromJSON.stdout))
	require.Equal(t, fromText.stdout, strings.Replace(fromJSON.stdout, "trace.json\n", "schedule.txt\n", 1))
}

// TestReplayRefusesBadTraces: a trace.json of another format, one that is
// not a trace, and flags besides -replay are refused with one line (exit
// 2) that says why.
func TestReplayRefusesBadTraces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := explore(t, "-protocol", "naive", "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	good, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	other := write("other.json", strings.Replace(string(good), `"format": 2,`, `"format": 3,`, 1))
	summary := filepath.Join(dir, "summary.json")
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"another format", []string{"-replay", other}, "explore: replay " + other + ": the trace is of format 3 (written by explore " + check.Version + "), but explore " + check.Version + " reads formats 1 and 2\n"},
		{"a summary.json", []string{"-replay", summary}, `not a trace.json: its "schema" is ""`},
		{"-replay with -protocol", []string{"-replay", filepath.Join(dir, "trace.json"), "-protocol", "merged"}, "-replay and -protocol both given: the file names its protocol, atomicity, scenario and the violations searched for"},
		{"-replay with -atomicity", []string{"-replay", filepath.Join(dir, "trace.json"), "-atomicity", "free-threaded"}, "-replay and -atomicity both given"},
		{"-replay with -scenario", []string{"-replay", filepath.Join(dir, "trace.json"), "-scenario", "x"}, "-replay and -scenario both given"},
		{"-replay with -after-failure", []string{"-replay", filepath.Join(dir, "trace.json"), "-after-failure"}, "-replay and -after-failure both given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, tt.says)
		})
	}
}

// TestReportMarkdown: -report md prints the bug report instead of the
// trace, -out writes the same as report.md (naming no path of -out's),
// and -report is refused (one line, exit 2) without a violation, with
// -json and with another format.
func TestReportMarkdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := explore(t, "-protocol", "naive", "-report", "md", "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "# `swapped_cuda_module` (naive): AttributeError: module 'numba.cuda' has no attribute 'local'"), r.stdout[:200])
	require.Contains(t, r.stdout, "\n## Replay\n")
	require.Empty(t, bugreport.LocalPaths(r.stdout), "the report names a path of this machine")
	require.NotContains(t, r.stdout, dir)
	require.Equal(t, r.stdout, readFiles(t, dir, "report.md")["report.md"])
	script := readFiles(t, dir, "replay.py")["replay.py"]
	require.Contains(t, r.stdout, fmt.Sprintf("(`replay.py`, %d bytes, sha256 `%x`", len(script), sha256.Sum256([]byte(script))),
		"the report's inline replay is -out's replay.py")
	require.Contains(t, r.stdout, "writes the same file as `DIR/replay.py` beside `DIR/report.md`")

	t.Run("replayed", func(t *testing.T) {
		again := explore(t, "-replay", filepath.Join(dir, "trace.json"), "-report", "md")
		require.Equal(t, cli.ExitViolation, again.code, again.stderr)
		require.Contains(t, again.stdout, "## Trace")
	})
	t.Run("no report without a violation", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		r := explore(t, "-protocol", "merged", "-report", "md", "-out", out)
		requireUsageError(t, r)
		require.Contains(t, r.stderr, "-report md: the verdict is verified, not a violation: there is no bug to report")
		require.NoFileExists(t, filepath.Join(out, "report.md"))
		require.FileExists(t, filepath.Join(out, "trace.json"))
	})
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"another format", []string{"-protocol", "naive", "-report", "pdf"}, `-report "pdf": the formats are md, html`},
		{"no format", []string{"-protocol", "naive", "-report", ""}, "-report needs a format: md, html"},
		{"with -json", []string{"-protocol", "naive", "-report", "md", "-json"}, "-report and -json both given"},
		{"with -table", []string{"-table", "-report", "md"}, "-table and -report both given"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, tt.says)
		})
	}
}

// TestReportHTML: -report html prints the trace as a page instead of the
// trace, -out writes the same page as trace.html for every verdict (the
// verdict's page when there is no violation), and -replay of its
// trace.json prints it again. What the page shows is checked in package
// bugreport (TestGolden, TestPageInBrowser).
func TestReportHTML(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := explore(t, "-protocol", "naive", "-report", "html", "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "<!doctype html>\n"), r.stdout[:100])
	require.Contains(t, r.stdout, "<title>swapcheck: naive (gil): AttributeError: module &#39;numba.cuda&#39; has no attribute &#39;local&#39;</title>")
	// the page names no path of this machine: the trace.json beside it
	require.Contains(t, r.stdout, `<pre id="replay">go run ./cmd/explore -replay trace.json</pre>`)
	require.NotContains(t, r.stdout, dir)
	require.Contains(t, r.stdout, `<iframe id="porcupine"`, "porcupine rejects the seed race's history")
	files := readFiles(t, dir, "trace.html", "report.md")
	require.Equal(t, r.stdout, files["trace.html"])

	again := explore(t, "-replay", filepath.Join(dir, "trace.json"), "-report", "html")
	require.Equal(t, cli.ExitViolation, again.code, again.stderr)
	timeline := func(page string) string {
		_, after, _ := strings.Cut(page, `<table id="timeline">`)
		table, _, _ := strings.Cut(after, "</table>")
		return table
	}
	require.NotEmpty(t, timeline(r.stdout))
	require.Equal(t, timeline(r.stdout), timeline(again.stdout), "the replay's timeline")

	t.Run("no violation", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "merged")
		r := explore(t, "-protocol", "merged", "-report", "html", "-out", out)
		requireUsageError(t, r)
		require.Contains(t, r.stderr, "-report html: the verdict is verified, not a violation: there is no bug to report")
		r = explore(t, "-protocol", "merged", "-out", out, "-force", "-quiet")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		page := readFiles(t, out, "trace.html")["trace.html"]
		require.Contains(t, page, `<dd id="verdict">verified</dd>`)
		require.NotContains(t, page, `<table id="timeline">`)
		require.NoFileExists(t, filepath.Join(out, "report.md"))
	})
}

// TestReplaySaysWhenTheViolationChanged: a trace.json whose recorded
// violation the replay does not end in again gets one line on stderr
// saying both; one that it does gets none.
func TestReplaySaysWhenTheViolationChanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := explore(t, "-protocol", "naive", "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	path := filepath.Join(dir, "trace.json")
	same := explore(t, "-replay", path)
	require.Equal(t, cli.ExitViolation, same.code, same.stderr)
	require.NotContains(t, same.stderr, "the replay ends in")

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(good), `"kind": "use-saw-real"`, `"kind": "exception"`, 1)
	require.NotEqual(t, string(good), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
	changed := explore(t, "-replay", path)
	require.Equal(t, cli.ExitViolation, changed.code, changed.stderr)
	require.Contains(t, changed.stderr, "explore: the replay ends in use-saw-real (T1: dev1.cuda is the real module, not fake#1: AttributeError: module 'numba.cuda' has no attribute 'local'), but explore "+check.Version+" recorded exception (")
}

// TestReportTellsOneStory: whatever gave the trace (a search of each
// strategy, the corpus, a replay of a trace.json or a schedule.txt, a
// scenario file), the report says so once, never contradicts it, and
// names no path of this machine: the files given by absolute paths are
// left out, and the scenario file is named by what the report carries.
func TestReportTellsOneStory(t *testing.T) {
	tmp := t.TempDir()
	run := filepath.Join(tmp, "run")
	r := explore(t, "-protocol", "refcount-del", "-threads", "3", "-out", run, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	corpus := filepath.Join(tmp, "corpus")
	require.NoError(t, os.MkdirAll(corpus, 0o755))
	trace := readFiles(t, run, "trace.json")["trace.json"]
	require.NoError(t, os.WriteFile(filepath.Join(corpus, "known.json"), []byte(trace), 0o644))
	naive := filepath.Join(tmp, "naive")
	r = explore(t, "-protocol", "naive", "-out", naive, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	naiveCorpus := filepath.Join(tmp, "naive-corpus")
	require.NoError(t, os.MkdirAll(naiveCorpus, 0o755))
	trace = readFiles(t, naive, "trace.json")["trace.json"]
	require.NoError(t, os.WriteFile(filepath.Join(naiveCorpus, "seed.json"), []byte(trace), 0o644))
	scen := filepath.Join(tmp, "aborted.txt")
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "scenarios", "aborted-launch.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(scen, text, 0o644))

	const (
		searched = "by searching the interleavings"
		fromCorp = "took this schedule from its corpus"
		replayed = "replayed this schedule from a saved trace"
	)
	for _, tt := range []struct {
		name   string
		args   []string
		story  string
		search string // the command the report names to find it again ("" for none)
	}{
		{"search", []string{"-protocol", "refcount-del", "-threads", "3"}, searched, ""},
		{"corpus", []string{"-protocol", "naive", "-corpus", naiveCorpus}, fromCorp, ""},
		{"corpus, a trace 3.11 cannot run", []string{"-protocol", "refcount-del", "-threads", "3", "-corpus", corpus}, searched, ""},
		{"replay trace.json", []string{"-replay", filepath.Join(run, "trace.json")}, replayed, ""},
		{"replay schedule.txt", []string{"-replay", filepath.Join(run, "schedule.txt")}, replayed, ""},
		{"random", []string{"-protocol", "refcount-del", "-threads", "3", "-strategy", "random"}, searched, ""},
		{"scenario file", []string{"-protocol", "merged", "-scenario", scen, "-strategy", "dfs"}, searched,
			"go run ./cmd/explore -protocol merged -scenario scenario.txt -strategy dfs"},
		{"corpus of another protocol", []string{"-protocol", "naive", "-corpus", corpus}, searched, "go run ./cmd/explore -protocol naive"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, append(tt.args, "-report", "md")...)
			require.Equal(t, cli.ExitViolation, r.code, r.stderr)
			md := r.stdout
			require.Empty(t, bugreport.LocalPaths(md), "the report names a path of this machine")
			require.NotContains(t, md, tmp)
			for _, s := range []string{searched, fromCorp, replayed} {
				n := strings.Count(md, s)
				if s == tt.story {
					require.Equal(t, 1, n, "the report says %q %d times", s, n)
				} else {
					require.Zero(t, n, "the report says %q, not only %q", s, tt.story)
				}
			}
			require.NotContains(t, md, "strategy `replay`", "a replay is not a search")
			// refcount-del's gil trace switches where CPython 3.11 cannot
			// (a step marked ~): a search's report shows gil-breaker's
			// trace instead; a replay, which searches nothing, says which
			// switch 3.11 cannot make
			unreal := regexp.MustCompile(`(?m)^ *(>>)?~[0-9]+ \|`)
			if tt.story == replayed {
				require.Regexp(t, unreal, md)
				require.Contains(t, md, "1 switch CPython 3.11 cannot make (marked `~`): at step 40 T1 takes over from T0")
			} else {
				require.NotRegexp(t, unreal, md, "the report shows a switch 3.11 cannot make where gil-breaker has a trace")
			}
			if tt.search != "" {
				require.Contains(t, md, "In a checkout of swapcheck, the search prints this trace again (its replay line): `"+tt.search+"`")
			}
		})
	}
}
