package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
	"swapcheck/model"
)

// stressSummary is the part of -backend goroutines -json the tests read.
type stressSummary struct {
	Backend     string  `json:"backend"`
	Protocol    string  `json:"protocol"`
	Threads     int     `json:"threads"`
	Verdict     string  `json:"verdict"`
	Calls       int64   `json:"calls"`
	CallsPerSec float64 `json:"calls_per_sec"`
	Violation   *struct {
		Kind        string  `json:"kind"`
		Thread      string  `json:"thread"`
		AfterMS     float64 `json:"after_ms"`
		CallsBefore int64   `json:"calls_before"`
		Reproduced  bool    `json:"reproduced"`
		Schedule    []int   `json:"schedule"`
	} `json:"violation"`
}

// Stress with 64 goroutines finds naive's race and says how long it took.
func TestStressFindsNaive(t *testing.T) {
	for _, mode := range model.Atomicities() {
		a := mode.String()
		t.Run(a, func(t *testing.T) {
			r := explore(t, "-backend", "goroutines", "-protocol", "naive", "-threads", "64", "-atomicity", a, "-duration", "20s")
			require.Equal(t, cli.ExitViolation, r.code, r.stderr)
			require.Contains(t, r.stdout, "verdict: violation use-saw-real")
			require.Contains(t, r.stdout, "found after ")
			require.Contains(t, r.stdout, "to the same failure")
			require.Contains(t, r.stderr, "first violation after")
			repro := r.stdout[strings.Index(r.stdout, "reproduce: "):]
			for _, arg := range []string{"go run ./cmd/explore ", "-backend goroutines", "-protocol naive", "-threads 64", "-atomicity " + a} {
				require.Contains(t, repro, arg)
			}

			code, s := stressJSON(t, "-backend", "goroutines", "-protocol", "naive", "-threads", "64", "-atomicity", a, "-duration", "20s")
			require.Equal(t, cli.ExitViolation, code)
			require.Equal(t, "violation", s.Verdict)
			require.Equal(t, "use-saw-real", s.Violation.Kind)
			require.Positive(t, s.Violation.AfterMS)
			require.Positive(t, s.Violation.CallsBefore)
			require.True(t, s.Violation.Reproduced)
		})
	}
}

// merged on 1024 goroutines: no violation, and the calls per second.
func TestStressMerged1024(t *testing.T) {
	code, s := stressJSON(t, "-backend", "goroutines", "-protocol", "merged", "-threads", "1024", "-max-calls", "3000")
	require.Equal(t, cli.ExitOK, code)
	require.Equal(t, "no-violation-found", s.Verdict)
	require.Equal(t, "goroutines", s.Backend)
	require.Equal(t, 1024, s.Threads)
	require.GreaterOrEqual(t, s.Calls, int64(3000))
	require.Positive(t, s.CallsPerSec)
	require.Nil(t, s.Violation)

	r := explore(t, "-backend", "goroutines", "-protocol", "merged", "-threads", "8", "-max-calls", "100")
	require.Equal(t, cli.ExitOK, r.code)
	require.Contains(t, r.stdout, "calls/s")
	require.Contains(t, r.stdout, "no violation found; this proves nothing")
}

// -out saves the failing launch's schedule, which -replay replays in the
// simulator to the same failure.
func TestStressOutReplays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := explore(t, "-backend", "goroutines", "-protocol", "naive", "-threads", "8", "-duration", "20s", "-out", dir)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stdout, "reproduce: go run ./cmd/explore -replay "+filepath.Join(dir, "schedule.txt"))
	files := readFiles(t, dir, "trace.txt", "schedule.txt", "summary.json")
	require.Equal(t, r.stdout, files["trace.txt"])
	var s stressSummary
	require.NoError(t, json.Unmarshal([]byte(files["summary.json"]), &s))
	require.Contains(t, files["summary.json"], `"version": "`+check.Version+`"`)
	require.Contains(t, files["schedule.txt"], "\nformat 2 (explore "+check.Version+")\n")

	code, replayed := exploreJSON(t, "-replay", filepath.Join(dir, "schedule.txt"))
	require.Equal(t, cli.ExitViolation, code)
	require.Equal(t, s.Violation.Kind, replayed.Violation.Kind)
	require.Equal(t, s.Violation.Schedule, replayed.Violation.Schedule)
}

func stressJSON(t *testing.T, args ...string) (int, stressSummary) {
	t.Helper()
	r := explore(t, append(args, "-json")...)
	var s stressSummary
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), "stdout of %v is not a JSON summary:\n%s\nstderr: %s", args, r.stdout, r.stderr)
	return r.code, s
}

func TestStressBadInput(t *testing.T) {
	stressArgs := func(more ...string) []string {
		return append([]string{"-backend", "goroutines", "-protocol", "merged"}, more...)
	}
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"unknown backend", []string{"-backend", "threads", "-protocol", "merged"}, `unknown -backend "threads"`},
		{"1025 threads for a search", []string{"-protocol", "merged", "-threads", "1025"}, "the searches take at most 1024 threads per block (CUDA's most)"},
		{"65 threads for -source", []string{"-source", "k.py", "-threads", "65"}, "-source searches take at most 64 threads per block"},
		{"1025 goroutines", stressArgs("-threads", "1025"), "threads must be 1..1024"},
		{"-duration for a search", []string{"-protocol", "merged", "-duration", "1s"}, "-duration needs -compare or -backend goroutines"},
		{"-gosched for a search", []string{"-protocol", "merged", "-gosched", "1"}, "-gosched needs -backend goroutines"},
		{"-strategy with goroutines", stressArgs("-strategy", "bfs"), "-backend goroutines and -strategy both given: -backend goroutines does not read -strategy"},
		{"-replay with goroutines", stressArgs("-replay", "x"), "-backend goroutines and -replay both given"},
		{"missing -protocol", []string{"-backend", "goroutines"}, "missing -protocol"},
		{"negative -duration", stressArgs("-duration", "-1s"), "-duration must be 0 or more"},
		{"-gosched 2", stressArgs("-gosched", "2"), "-gosched must be between 0 and 1"},
		{"-compare with -protocol", []string{"-compare", "-protocol", "naive"}, "-compare and -protocol both given"},
		{"-compare -trials 0", []string{"-compare", "-trials", "0"}, "-trials must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			// requireUsageError, but these messages name the goroutines
			// backend: a panic's dump says "goroutine 1 [running]".
			require.Equal(t, cli.ExitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			require.Empty(t, r.stdout)
			require.True(t, strings.HasPrefix(r.stderr, "explore: "), "stderr: %q", r.stderr)
			require.Equal(t, 1, strings.Count(r.stderr, "\n"), "stderr is not one line: %q", r.stderr)
			require.NotContains(t, r.stderr, "panic")
			require.NotContains(t, r.stderr, "[running]")
			require.Contains(t, r.stderr, tt.says)
		})
	}
}
