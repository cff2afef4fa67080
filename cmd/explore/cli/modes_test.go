package cli_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
	"swapcheck/scenario"
)

// TestModesRefuseFlagsTheyDoNotRead: a flag the chosen mode would ignore
// is refused with one line (exit 2), never silently accepted.
func TestModesRefuseFlagsTheyDoNotRead(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"-table -protocol", []string{"-table", "-protocol", "merged"}, "-table and -protocol both given: -table takes no other flag"},
		{"-table -out", []string{"-table", "-out", out}, "-table and -out both given"},
		{"-table -timeout", []string{"-table", "-timeout", "1ms"}, "-table and -timeout both given"},
		{"-compare -table", []string{"-compare", "-table"}, "-table and -compare both given: each picks what explore does"},
		{"-list -protocol", []string{"-list", "-protocol", "merged"}, "-list and -protocol both given"},
		{"-list -table", []string{"-list", "-table"}, "-list and -table both given"},
		{"-version -protocol", []string{"-version", "-protocol", "merged"}, "-version and -protocol both given"},
		{"-trials without -compare", []string{"-protocol", "merged", "-trials", "-1"}, "-trials needs -compare"},
		{"-trials alone", []string{"-trials", "3"}, "-trials needs -compare"},
		{"-max-calls for a search", []string{"-protocol", "merged", "-max-calls", "5"}, "-max-calls needs -backend goroutines"},
		{"-compare -backend goroutines", []string{"-compare", "-backend", "goroutines"}, "-compare and -backend both given"},
		{"-compare -out", []string{"-compare", "-out", out}, "-compare and -out both given"},
		{"-replay -strategy", []string{"-replay", "x", "-strategy", "dfs"}, "-replay and -strategy both given: the file names its protocol"},
		{"-replay -timeout", []string{"-replay", "x", "-timeout", "1s"}, "-replay and -timeout both given"},
		{"-force without -out", []string{"-protocol", "merged", "-force"}, "-force needs -out"},
		{"-backend goroutines -workers", []string{"-backend", "goroutines", "-protocol", "merged", "-workers", "2"}, "-backend goroutines and -workers both given"},
		{"dfs -preemptions", []string{"-protocol", "merged", "-strategy", "dfs", "-preemptions", "3"}, "-strategy dfs does not read -preemptions (read by -strategy bounded)"},
		{"dfs -runs", []string{"-protocol", "merged", "-strategy", "dfs", "-runs", "10"}, "-strategy dfs does not read -runs"},
		{"dfs -seed", []string{"-protocol", "merged", "-strategy", "dfs", "-seed", "5"}, "-strategy dfs does not read -seed"},
		{"dfs -depth", []string{"-protocol", "merged", "-strategy", "dfs", "-depth", "3"}, "-strategy dfs does not read -depth (read by -strategy pct)"},
		{"random -depth", []string{"-protocol", "merged", "-strategy", "random", "-depth", "3"}, "-strategy random does not read -depth"},
		{"auto -preemptions", []string{"-protocol", "merged", "-preemptions", "3"}, "-strategy auto does not read -preemptions"},
		{"bfs -workers", []string{"-protocol", "merged", "-strategy", "bfs", "-workers", "2"}, "-strategy bfs does not read -workers"},
		{"-source -protocol", []string{"-source", "k.py", "-protocol", "merged"}, "-source FILE[:NAME] and -protocol both given: -source FILE[:NAME] does not read -protocol"},
		{"-source -workers", []string{"-source", "k.py", "-workers", "2"}, "-source FILE[:NAME] and -workers both given"},
		{"-source -emit-test", []string{"-source", "k.py", "-emit-test", "t.py"}, "-source FILE[:NAME] and -emit-test both given"},
		{"-source -strategy", []string{"-source", "k.py", "-strategy", "dfs"}, "-source FILE[:NAME] and -strategy both given"},
		{"-source -list", []string{"-source", "k.py", "-list"}, "-list and -source FILE[:NAME] both given: each picks what explore does"},
		{"-source -replay", []string{"-replay", "x", "-source", "k.py"}, "-source FILE[:NAME] and -replay both given"},
		{"-python alone", []string{"-protocol", "merged", "-python", "3.12"}, "-python needs -source FILE[:NAME] or -replay-random N"},
		{"dpor -workers", []string{"-protocol", "merged", "-strategy", "dpor", "-workers", "2"}, "-strategy dpor does not read -workers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, tt.says)
		})
	}
	require.NoFileExists(t, filepath.Join(out, "summary.json"))
}

// TestHelp: -h of explore and of merge print the usage on stdout and exit
// 0: the forms, the subcommand, the exit statuses, the modes and the
// flags with their ranges (from the model's limits).
func TestHelp(t *testing.T) {
	ranges := []string{
		fmt.Sprintf("1..%d (1..%d with -source)", scenario.MaxThreads, scenario.MaxSourceThreads),
		fmt.Sprintf("1..%d", scenario.MaxBlocks),
		fmt.Sprintf("0..%d", scenario.MaxStmts/2),
		fmt.Sprintf("1..%d (besides the kernel's)", scenario.MaxModules-1),
		fmt.Sprintf("(cuda, cu, ...), 1..%d", scenario.MaxNames),
		fmt.Sprintf("0..%d", scenario.MaxNest),
		"1..1024",
	}
	tests := []struct {
		name     string
		args     []string
		contains []string
	}{
		{"explore -h", []string{"-h"}, append([]string{"explore merge", "exit status", "  3  incomplete", "-backend goroutines", "-trials int", "-version", check.Version}, ranges...)},
		{"explore -help", []string{"-help"}, []string{"exit status", "explore merge"}},
		{"explore merge -h", []string{"merge", "-h"}, []string{"explore merge [-json] SUMMARY.json", "exit status", "-json", "docs/sharding.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			require.Empty(t, r.stderr)
			for _, c := range tt.contains {
				require.Contains(t, r.stdout, c)
			}
			require.NotContains(t, r.stdout, "help requested")
		})
	}
}

func TestVersion(t *testing.T) {
	r := explore(t, "-version")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Equal(t, fmt.Sprintf("explore %s (schedule.txt, trace.json and summary.json format %d)\n", check.Version, check.FormatVersion), r.stdout)

	// the files of a run record it
	dir := filepath.Join(t.TempDir(), "run")
	require.Equal(t, cli.ExitViolation, explore(t, "-protocol", "naive", "-out", dir, "-quiet").code)
	files := readFiles(t, dir, "schedule.txt", "summary.json")
	require.Contains(t, files["schedule.txt"], "\nformat 2 (explore "+check.Version+")\n")
	require.Contains(t, files["summary.json"], `"version": "`+check.Version+`"`)
}

// TestErrorsQuoteControlCharacters: whatever the input, the one line on
// stderr holds no raw control character.
func TestErrorsQuoteControlCharacters(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{"an unknown flag", []string{"-protocol", "merged", "-\x1b[2Jx"}},
		{"a positional argument", []string{"-protocol", "merged", "a\x07b"}},
		{"an unknown protocol", []string{"-protocol", "x\x1by"}},
		{"a missing scenario", []string{"-protocol", "merged", "-scenario", filepath.Join(dir, "no\x1b[31mfile")}},
		{"an unknown merge flag", []string{"merge", "-\x01"}},
		{"a missing summary", []string{"merge", filepath.Join(dir, "x\x1b.json")}},
	}
	control := regexp.MustCompile(`[\x00-\x09\x0b-\x1f\x7f]`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			require.Equal(t, cli.ExitUsage, r.code)
			require.Equal(t, 1, strings.Count(r.stderr, "\n"), "%q", r.stderr)
			require.False(t, control.MatchString(r.stderr), "a raw control character in %q", r.stderr)
		})
	}
}

// TestEveryFlagHasAMode: -h describes every flag under a mode that reads
// it (none is read by no mode, which -h would name), and every line fits
// 100 columns.
func TestEveryFlagHasAMode(t *testing.T) {
	r := explore(t, "-h")
	require.NotContains(t, r.stdout, "read by no mode")
	names := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(r.stdout, -1)
	require.Greater(t, len(names), 40)
	for i, line := range strings.Split(r.stdout, "\n") {
		require.LessOrEqual(t, len(line), 100, "-h line %d is wider than 100 columns: %q", i+1, line)
	}
	require.Regexp(t, `(?m)^  -nest int\n.*\n?.*\(default 0\)`, r.stdout, "-nest without its default")
	_, replay, ok := strings.Cut(r.stdout, "(-replay):")
	require.True(t, ok)
	require.NotContains(t, replay, "-backend", "-replay does not read -backend")
}
