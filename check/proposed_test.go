package check_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// scenarioAt parses a scenario file of testdata/scenarios with its
// threads line set to threads (0: as the file says).
func scenarioAt(t *testing.T, file string, threads int) *scenario.Scenario {
	t.Helper()
	raw, err := os.ReadFile("../testdata/scenarios/" + file)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if threads > 0 && strings.HasPrefix(l, "threads ") {
			l = fmt.Sprintf("threads %d", threads)
		}
		lines = append(lines, l)
	}
	sc, err := scenario.Parse(strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	return sc
}

// TestProposedSurvivesWhereMergedFails: on the scenario files where
// merged (numba-cuda 0.25.0 and head) fails, two hosts launching at once
// and an aborted launch whose threads linger, proposed is verified in
// every atomicity mode, at 2 GPU threads per block (3 with
// SWAPCHECK_LONG=1). Merged failing on each is checked too, so that no
// scenario here is one where nothing can go wrong.
func TestProposedSurvivesWhereMergedFails(t *testing.T) {
	threads := 2
	if testenv.Long() {
		threads = 3
	}
	proposed, err := check.Lookup("proposed")
	require.NoError(t, err)
	merged, err := check.Lookup("merged")
	require.NoError(t, err)
	for _, file := range []string{"two-hosts.txt", "aborted-launch.txt", "host-call-after-abort.txt"} {
		sc := scenarioAt(t, file, threads)
		for _, a := range model.Atomicities() {
			t.Run(file+"/"+a.String(), func(t *testing.T) {
				rep, err := check.Explore(check.Config{Protocol: proposed, Scenario: sc, Atomicity: a})
				require.NoError(t, err)
				require.Equal(t, sched.Verified, rep.Result.Verdict, "%+v", rep.Result.Failure)
				rep, err = check.Explore(check.Config{Protocol: merged, Scenario: sc, Atomicity: a})
				require.NoError(t, err)
				require.Equal(t, sched.Violation, rep.Result.Verdict, "merged on %s", file)
			})
		}
	}
}
