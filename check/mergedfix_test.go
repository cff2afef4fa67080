package check_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// TestMergedFixCallBack pins what docs/merged_fix.md says of a thread that
// calls back, from inside a device function, into a module the next launch
// holds: when its launch was aborted its abort flag makes it raise instead
// of waiting (testdata/merged-fix/aborted-call-back.txt, verified); when an
// interrupt left it running it waits for launch 2 while launch 2 waits for
// it (interrupt-call-back.txt, a deadlock). merged fails both differently,
// with launch 2 reading launch 1's fake.
func TestMergedFixCallBack(t *testing.T) {
	for _, tt := range []struct {
		file, protocol string
		want           sched.Verdict
		kind           string
	}{
		{"aborted-call-back.txt", "merged-fix", sched.Verified, ""},
		{"interrupt-call-back.txt", "merged-fix", sched.Violation, check.KindDeadlock},
		{"aborted-call-back.txt", "merged", sched.Violation, check.KindUseSawOtherFake},
	} {
		t.Run(tt.protocol+"/"+tt.file, func(t *testing.T) {
			f, err := os.Open("../testdata/merged-fix/" + tt.file)
			require.NoError(t, err)
			defer f.Close()
			sc, err := scenario.Parse(f)
			require.NoError(t, err)
			p, err := check.Lookup(tt.protocol)
			require.NoError(t, err)
			rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyStates})
			require.NoError(t, err)
			require.Equal(t, tt.want, rep.Result.Verdict)
			if tt.kind != "" {
				require.Equal(t, tt.kind, rep.Result.Failure.Kind, rep.Result.Failure.Message)
			}
		})
	}
}
