package cli_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// replayCommand is the command of a trace's replay line, its
// continuation lines (" \\" at a line's end, as a shell reads it)
// joined.
func replayCommand(t *testing.T, trace string) string {
	t.Helper()
	_, cmd, ok := strings.Cut(trace, "\nreplay: ")
	require.True(t, ok, "no replay line in\n%s", trace)
	cmd = strings.ReplaceAll(cmd, " \\\n    ", " ")
	cmd, _, _ = strings.Cut(cmd, "\n")
	return cmd
}

// replayArgs are the arguments of a trace's replay line.
func replayArgs(t *testing.T, trace string) []string {
	t.Helper()
	cmd, ok := strings.CutPrefix(replayCommand(t, trace), "go run ./cmd/explore ")
	require.True(t, ok, "the replay line is no explore command:\n%s", trace)
	return strings.Fields(cmd)
}

// withoutShrunk is a trace without its shrunk line, which says how the
// run that printed it got its counterexample: a replay command naming
// the shrunk scenario prints the same counterexample, but shrinks
// nothing.
func withoutShrunk(trace string) string {
	return regexp.MustCompile(`(?m)^shrunk: .*\n(    .*\n)*\n`).ReplaceAllString(trace, "")
}

// TestShrinkByDefault: a violation is shrunk unless -shrink=false; stderr
// says what shrank; the replay command names the shrunk scenario's flags
// and prints the same trace again; -shrink=false prints the search's own
// counterexample, and its replay command says -shrink=false.
func TestShrinkByDefault(t *testing.T) {
	big := []string{"-protocol", "naive", "-threads", "4", "-calls", "2", "-quiet"}
	r := explore(t, big...)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stdout, "\n22 steps (2 preemptions)")
	require.True(t, strings.HasSuffix(r.stdout, "\nreplay: go run ./cmd/explore -protocol naive\n"), r.stdout)
	require.Regexp(t, `(?m)^explore: shrunk: threads 4 -> 2, calls 2 -> 1; steps 68 -> 22 \([0-9]+ searches, [0-9]+ steps, [0-9.]+ ms\)$`, r.stderr)

	again := explore(t, append(replayArgs(t, r.stdout), "-quiet")...)
	require.Contains(t, r.stdout, "\nshrunk: threads 4 -> 2, calls 2 -> 1; steps 68 -> 22\n")
	require.Contains(t, again.stdout, "\nshrunk: nothing: ")
	require.Equal(t, withoutShrunk(r.stdout), withoutShrunk(again.stdout), "the replay command prints another counterexample")
	require.Contains(t, again.stderr, "explore: shrunk: nothing")

	off := explore(t, append(big, "-shrink=false")...)
	require.Equal(t, cli.ExitViolation, off.code, off.stderr)
	require.Contains(t, off.stdout, "\n68 steps (2 preemptions)")
	require.True(t, strings.HasSuffix(off.stdout, "\nreplay: go run ./cmd/explore -calls 2 -protocol naive -shrink=false -threads 4\n"), off.stdout)
	require.NotContains(t, off.stderr, "shrunk")
	offAgain := explore(t, append(replayArgs(t, off.stdout), "-quiet")...)
	require.Equal(t, off.stdout, offAgain.stdout)

	t.Run("summary.json", func(t *testing.T) {
		r := explore(t, append(big, "-json")...)
		var s check.Summary
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
		require.NotNil(t, s.Shrunk)
		require.Equal(t, "threads 4 -> 2, calls 2 -> 1; steps 68 -> 22", s.Shrunk.Text)
		require.Equal(t, []check.ShrinkChange{{Dim: "threads", From: "4", To: "2"}, {Dim: "calls", From: "2", To: "1"}}, s.Shrunk.Changes)
		require.Equal(t, 68, s.Shrunk.StepsFrom)
		require.Equal(t, 22, s.Shrunk.StepsTo)
		require.Contains(t, s.Shrunk.FromScenario, "threads 4\n")
		require.Contains(t, s.Scenario, "threads 2\n")
		require.Equal(t, 22, s.Violation.TraceSteps)

		r = explore(t, append(big, "-json", "-shrink=false")...)
		require.NotContains(t, r.stdout, `"shrunk"`)
	})

	t.Run("not for a shard", func(t *testing.T) {
		r := explore(t, "-protocol", "naive", "-threads", "4", "-shard", "0/2", "-quiet")
		require.NotContains(t, r.stderr, "shrunk")
	})
}

// TestShrinkScenarioFile: a scenario file's threads shrink; flags cannot
// name the shrunk scenario, so the replay command is the one given (and
// stderr says how to get the scenario), and with -out the schedule file
// holds the shrunk scenario and replays to the same trace.
func TestShrinkScenarioFile(t *testing.T) {
	file := filepath.Join(scenarioDir, "syncthreads.txt")
	r := explore(t, "-protocol", "naive", "-scenario", file, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stderr, "explore: shrunk: threads 3 -> 2;")
	require.Contains(t, r.stderr, "the shrunk scenario has no flags: -out DIR writes it")
	require.Contains(t, r.stdout, "\n    threads 2\n")
	require.Equal(t, []string{"-protocol", "naive", "-scenario", file}, replayArgs(t, r.stdout))
	again := explore(t, append(replayArgs(t, r.stdout), "-quiet")...)
	require.Equal(t, r.stdout, again.stdout)

	dir := filepath.Join(t.TempDir(), "out")
	r = explore(t, "-protocol", "naive", "-scenario", file, "-out", dir, "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	files := readFiles(t, dir, "trace.txt", "schedule.txt")
	require.Contains(t, files["schedule.txt"], "\n    threads 2\n")
	replayed := explore(t, "-replay", filepath.Join(dir, "schedule.txt"))
	require.Equal(t, cli.ExitViolation, replayed.code, replayed.stderr)
	require.Equal(t, files["trace.txt"], replayed.stdout)
}
