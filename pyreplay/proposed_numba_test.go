package pyreplay_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProposedOnNumbasSimulator runs testdata/cpython/proposed_numba.py:
// proposed's rendition with docs/proposed_fix.md's kernel.py patch applied
// to numba's real CUDA simulator (0.56.4), on real threads: two hosts
// launching at once, aborted launches, KeyboardInterrupts landing at
// random in launches, and the host's own use of cuda afterwards. Every
// run must be right. The same script on numba's own simulator shows the
// two-host failure (the assert in _push_kernel_context), so that the
// scenario is one where something can go wrong. A stress on the OS's
// interleavings, not a proof: the model's verdicts are the proof.
func TestProposedOnNumbasSimulator(t *testing.T) {
	t.Parallel()
	py := pythonWithNumba(t)
	script := filepath.Join("..", "testdata", "cpython", "proposed_numba.py")
	type tally struct {
		Runs, Failures int
		First          *string `json:"first_failure"`
	}
	run := func(args ...string) map[string]tally {
		out, err := exec.Command(py, append([]string{script}, args...)...).Output()
		require.NoError(t, err, "%s %v:\n%s", script, args, out)
		var res struct {
			Scenarios map[string]tally `json:"scenarios"`
		}
		require.NoError(t, json.Unmarshal(out, &res), "%s", out)
		return res.Scenarios
	}
	patched := run()
	for _, name := range []string{"two_hosts", "aborted_launch", "interrupts", "host_side"} {
		got, ok := patched[name]
		require.True(t, ok, "no scenario %s", name)
		require.Positive(t, got.Runs, name)
		require.Zero(t, got.Failures, "%s: first failure: %v", name, deref(got.First))
	}
	unpatched := run("--unpatched")
	require.Positive(t, unpatched["two_hosts"].Failures,
		"numba's own simulator survived two hosts launching 40 kernels each at once")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
