package check_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

// TestScheduleRoundTrip: the schedule WriteSchedule writes for a search's
// counterexample reads back and replays to the same report: the same
// configuration, verdict, failure, steps and preemptions, and writes out
// as the same file.
func TestScheduleRoundTrip(t *testing.T) {
	for _, rep := range seedReports(t) {
		t.Run(rep.Config.Protocol.Name, func(t *testing.T) {
			text := scheduleText(t, rep)
			s, err := check.ReadSchedule(strings.NewReader(text))
			require.NoError(t, err)
			require.Equal(t, rep.Config.Protocol.Name, s.Protocol.Name)
			require.Equal(t, rep.Config.Atomicity, s.Atomicity)
			require.Equal(t, rep.Config.Scenario.String(), s.Scenario.String())
			require.Equal(t, rep.Result.Schedule, s.Steps)

			got, err := check.Replay(s)
			if len(s.Steps) == 0 {
				// A search that found nothing writes no steps: the file
				// holds the configuration only, which no execution ends at.
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, rep.Result.Verdict, got.Result.Verdict)
			require.Equal(t, rep.Result.Failure, got.Result.Failure)
			require.Equal(t, rep.Result.Schedule, got.Result.Schedule)
			require.Equal(t, rep.Preemptions, got.Preemptions)
			require.Equal(t, text, scheduleText(t, got))
		})
	}
}

// TestSummaryRoundTrip: a summary WriteJSON wrote reads back equal.
func TestSummaryRoundTrip(t *testing.T) {
	for _, rep := range seedReports(t) {
		t.Run(rep.Config.Protocol.Name, func(t *testing.T) {
			want := check.Summarize(rep)
			var b bytes.Buffer
			require.NoError(t, want.WriteJSON(&b))
			got, err := check.ReadSummary(b.Bytes())
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
