package check_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
)

// The fuzz targets of the files explore reads: schedule.txt and
// trace.json (-replay), summary.json (-merge) and the -shard argument. Each must, on any input,
// return a value or a one-line error without raw control characters, never
// panic. Run one with
//
//	go test -run '^$' -fuzz '^FuzzSchedule$' -fuzztime 60s ./check

// seedReports are the searches whose files seed the corpora: naive's and
// refcount-del's counterexamples and a verified search (a schedule with no
// steps).
func seedReports(tb testing.TB) []*check.Report {
	tb.Helper()
	var reps []*check.Report
	for _, name := range []string{"naive", "refcount-del", "merged"} {
		rep, err := check.Explore(check.Config{Protocol: protocol(tb, name), Scenario: mergedScenario(tb, 2), Strategy: check.StrategyDFS, Atomicity: model.GIL})
		if err != nil {
			tb.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

func scheduleText(tb testing.TB, rep *check.Report) string {
	tb.Helper()
	var b strings.Builder
	if err := check.WriteSchedule(&b, rep); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// FuzzSchedule: ReadSchedule, and Replay of what it accepts; a schedule
// that replays to a violation writes out and reads back to the same
// violation.
func FuzzSchedule(f *testing.F) {
	for _, rep := range seedReports(f) {
		f.Add(scheduleText(f, rep))
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := check.ReadSchedule(strings.NewReader(text))
		requireOneLine(t, err)
		if err != nil {
			return
		}
		rep, err := check.Replay(s)
		requireOneLine(t, err)
		if err != nil || rep.Result.Failure == nil {
			return
		}
		again, err := check.ReadSchedule(strings.NewReader(scheduleText(t, rep)))
		require.NoError(t, err, "a schedule WriteSchedule wrote does not read back")
		rep2, err := check.Replay(again)
		require.NoError(t, err, "a schedule WriteSchedule wrote does not replay")
		require.Equal(t, rep.Result.Schedule, rep2.Result.Schedule)
		require.Equal(t, rep.Result.Failure, rep2.Result.Failure)
	})
}

// FuzzTrace: ReadTrace, and Replay of what it accepts; a trace that
// replays to a violation renders and reads back to the same schedule and
// violation, and one of another format is refused naming both formats.
// Besides the raw bytes, the target takes a format it writes into a
// trace of its own (mutating JSON text seldom yields a valid file with
// another format).
func FuzzTrace(f *testing.F) {
	for _, rep := range seedReports(f) {
		f.Add(traceJSON(f, rep), check.FormatVersion)
	}
	f.Add([]byte(`{"schema": "swapcheck-trace", "format": 1}`), 2)
	f.Fuzz(func(t *testing.T, data []byte, format int) {
		own := traceWithFormat(t, format)
		for _, data := range [][]byte{data, own} {
			// a corpus reads the head alone: never a panic, one line
			_, _, err := check.ReadTraceHeadForTest(data)
			requireOneLine(t, err)
			tr, err := check.ReadTrace(data)
			requireOneLine(t, err)
			if err != nil {
				if strings.Contains(err.Error(), "of format") {
					require.Contains(t, err.Error(), fmt.Sprintf("reads formats 1 and %d", check.FormatVersion))
				}
				continue
			}
			s, err := tr.Replayable()
			requireOneLine(t, err)
			if err != nil {
				continue
			}
			rep, err := check.Replay(s)
			requireOneLine(t, err)
			if err != nil || rep.Result.Failure == nil {
				continue
			}
			again, err := check.ReadReplay(traceJSON(t, rep))
			require.NoError(t, err, "a trace.json WriteJSON wrote does not read back")
			rep2, err := check.Replay(again)
			require.NoError(t, err, "a trace.json WriteJSON wrote does not replay")
			require.Equal(t, rep.Result.Schedule, rep2.Result.Schedule)
			require.Equal(t, rep.Result.Failure, rep2.Result.Failure)
		}
		tr, err := check.ReadTrace(own)
		switch format {
		case 1, check.FormatVersion: // format 1 still reads (replayed with every violation ending it)
			require.NoError(t, err)
			_, err = tr.Replayable()
			require.NoError(t, err)
		case 0:
			require.ErrorContains(t, err, `without a "format" field`)
		default:
			require.ErrorContains(t, err, fmt.Sprintf("of format %d", format))
		}
	})
}

// ownTrace is a small trace.json (one host step of merged) that the
// format field of FuzzTrace is written into.
var ownTrace = `{"schema": "swapcheck-trace", "format": %d, "version": "9.9.9", "protocol": "merged", "atomicity": "gil",
"scenario": {"text": "threads 1\nmodule kernels cuda\nkernel: use cuda.threadIdx\n", "threads": 1, "blocks": 1, "launches": 1,
"modules": [{"name": "kernels", "names": ["cuda"]}], "functions": [], "kernel": ["use cuda.threadIdx"]}, "schedule": [0]}`

func traceWithFormat(tb testing.TB, format int) []byte {
	tb.Helper()
	return []byte(fmt.Sprintf(ownTrace, format))
}

func traceJSON(tb testing.TB, rep *check.Report) []byte {
	tb.Helper()
	tr, err := check.NewTrace(rep, "")
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := tr.WriteJSON(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// FuzzSummary: ReadSummary, and MergeSummaries of what it accepts; a
// summary it reads writes out and reads back equal, and one of another
// format is refused naming both formats. Besides the raw bytes, the target
// takes a version, format and shard that it writes into a summary of its
// own: mutating JSON text seldom yields a valid file with an odd field,
// and these three are what the readers branch on.
func FuzzSummary(f *testing.F) {
	for i, rep := range seedReports(f) {
		s := check.Summarize(rep)
		f.Add(mustJSON(f, s), check.Version, check.FormatVersion, fmt.Sprintf("%d/3", i))
		s.Shard = fmt.Sprintf("%d/3", i)
		f.Add(mustJSON(f, s), "", 0, "")
	}
	f.Add([]byte(nil), "9.9.9", check.FormatVersion+1, "0/1") // a summary of another format
	f.Fuzz(func(t *testing.T, data []byte, version string, format int, shard string) {
		fields := mergePart
		fields.Version, fields.Format, fields.Shard = version, format, shard
		for _, data := range [][]byte{data, mustJSON(t, fields)} {
			s, err := check.ReadSummary(data)
			requireOneLine(t, err)
			if err != nil {
				if s.Format != 0 && s.Format != check.FormatVersion && !strings.HasPrefix(err.Error(), "not a summary.json") {
					require.Contains(t, err.Error(), fmt.Sprintf("of format %d", s.Format))
					require.Contains(t, err.Error(), fmt.Sprintf("reads formats 1 and %d", check.FormatVersion))
				}
				continue
			}
			back, err := check.ReadSummary(mustJSON(t, s))
			require.NoError(t, err, "a summary WriteJSON wrote does not read back")
			require.Equal(t, s, back)

			merged, err := check.MergeSummaries([]check.Summary{s})
			requireOneLine(t, err)
			if err == nil {
				_, err = check.ReadSummary(mustJSON(t, merged))
				require.NoError(t, err, "a merged summary does not read back")
			}
			// Beside a part of today's explore, so that what differs (the
			// version, the shard, the search) reaches the error.
			for _, parts := range [][]check.Summary{{s, mergePart}, {mergePart, s}} {
				_, err = check.MergeSummaries(parts)
				requireOneLine(t, err)
			}
		}
	})
}

// mergePart is a summary of part 1 of 2 of a search, as explore writes it.
var mergePart = check.Summary{Version: check.Version, Format: check.FormatVersion, Protocol: "merged", Atomicity: "gil", Strategy: "dfs",
	Scenario: "threads 2", Shard: "1/2", Verdict: "verified", Complete: true, Executions: 1}

func mustJSON(tb testing.TB, s check.Summary) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// FuzzShard: ParseShard accepts exactly "i/n" with 0 <= i < n, and what it
// accepts renders back to a shard it reads the same.
func FuzzShard(f *testing.F) {
	for _, s := range []string{"0/1", "2/3", "3/3", "-1/2", "1/0", "a/b", "1/2/3", " 1/2", "+1/2", "0/99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := check.ParseShard(s)
		requireOneLine(t, err)
		if err != nil {
			return
		}
		require.True(t, 0 <= i && i < n, "ParseShard(%q) = %d, %d", s, i, n)
		i2, n2, err := check.ParseShard(fmt.Sprintf("%d/%d", i, n))
		require.NoError(t, err)
		require.Equal(t, [2]int{i, n}, [2]int{i2, n2})
	})
}

// requireOneLine fails unless err is nil or a single line of printable
// text: what a command prints on stderr before exiting 2.
func requireOneLine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	require.NotEmpty(t, msg)
	require.False(t, strings.ContainsFunc(msg, unicode.IsControl), "the error holds a control character (or spans lines): %q", msg)
}
