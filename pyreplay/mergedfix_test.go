package pyreplay_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/sched"
)

// merged-fix replays on a simulator whose kernel.py carries its patch
// (the kernel context per thread): the stand-in's (kernel.py with
// testdata/merged-fix/kernel-edits.json applied), or numba's with
// numba-cuda's files patched by scripts/merged-fix-patch.py and overlaid
// by scripts/numba-overlay.py. Its counterexample (atomics-add-sub.txt's
// lost update, the simulator's atomics, not the swap) reproduces on both;
// on numba's own kernel.py the script refuses in one line that says what
// to install; and, with a clone of numba-cuda named by
// SWAPCHECK_NUMBA_CUDA_REPO, random walks of merged-fix replay on the
// patched numba with no violation.
func TestMergedFixReplays(t *testing.T) {
	t.Parallel()
	names, files := scenarioFiles(t)
	require.Contains(t, names, "atomics-add-sub.txt")
	pr, err := check.Lookup(searchedElsewhere)
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: pr, Scenario: files["atomics-add-sub.txt"], Atomicity: model.GIL, Shrink: true})
	require.NoError(t, err)
	require.Equal(t, sched.Violation, rep.Result.Verdict)
	require.Equal(t, "lost-update", rep.Result.Failure.Kind)
	script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) })

	r := runPython(testenv.Python311(t), []string{script}, "--target", "rendition")[0]
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stdout, "verdict: reproduced lost-update", r.stdout)

	py := pythonWithNumba(t)
	r = runPython(py, []string{script}, "--target", "numba")[0]
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stdout, "replay failed: merged-fix needs kernel.py patched so that the kernel context is the thread's own")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(r.stdout[strings.Index(r.stdout, "replay failed"):]), "\n")+1, r.stdout)

	repo := os.Getenv("SWAPCHECK_NUMBA_CUDA_REPO")
	if repo == "" {
		t.Skip("SWAPCHECK_NUMBA_CUDA_REPO is not set: no clone of NVIDIA/numba-cuda to patch kernel.py from")
	}
	patched := filepath.Join(t.TempDir(), "patch")
	out, err := exec.Command(py, "../scripts/merged-fix-patch.py", patched, "--repo", repo).CombinedOutput()
	require.NoError(t, err, "%s", out)
	env := overlay(t, "--swap", filepath.Join(patched, "b", "kernelapi.py"), "--kernel", filepath.Join(patched, "b", "kernel.py"))
	r = runPythonEnv(py, []string{env}, []string{script}, "--target", "numba", "--swap", "installed")[0]
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stdout, "its own swapped_cuda_module (merged-fix, ", r.stdout)
	require.Contains(t, r.stdout, "verdict: reproduced lost-update", r.stdout)

	scenarios := numbaScenarios(t)
	keys := make([]string, 0, len(scenarios))
	for k := range scenarios {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var scripts, what []string
	for _, name := range keys {
		p, err := model.NewProgram(scenarios[name], pr, model.GIL)
		require.NoError(t, err)
		for seed := range uint64(*numbaSeeds) {
			sch := randomSchedule(t, p, seed+1)
			scripts = append(scripts, writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, nil) }))
			what = append(what, fmt.Sprintf("merged-fix on %s, seed %d", name, seed+1))
		}
	}
	for i, r := range runPythonEnv(py, []string{env}, scripts, "--target", "numba", "--swap", "installed") {
		require.Equal(t, 0, r.code, "%s:\n%s", what[i], r.stdout)
		require.Contains(t, r.stdout, "replay: all ", "%s:\n%s", what[i], r.stdout)
		require.Contains(t, r.stdout, "verdict: no violation", what[i])
	}
}
