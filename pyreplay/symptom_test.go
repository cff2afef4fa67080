package pyreplay_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
)

// TestKernelPrintsWhichLaunchItSees: in merged's aborted launch (a
// thread of launch 2 runs with launch 1's fake), the code prints the
// symptom itself: each launch passes its own dynamic shared memory, and
// after its use of cuda the device function prints what its cuda holds,
// so the replay (on the stand-in, and on numba's simulator where it is
// installed) shows a thread seeing launch 1's amount after launch 2
// began. A scenario of one launch prints nothing of it, nor does a
// regression test.
func TestKernelPrintsWhichLaunchItSees(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "testdata", "scenarios", "aborted-launch.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	require.NoError(t, err)
	require.Equal(t, check.KindUseSawOtherFake, rep.Result.Failure.Kind)

	var main string
	for _, file := range pyreplay.UserCode(sc) {
		if file.Name == "main.py" {
			main = file.Text
		}
	}
	require.Contains(t, main, "kernel[1, 2, 0, 4 * (launch + 1)]()")
	require.NotEmpty(t, pyreplay.Symptom(sc))

	var script bytes.Buffer
	require.NoError(t, pyreplay.Emit(&script, rep))
	path := filepath.Join(t.TempDir(), "replay.py")
	require.NoError(t, os.WriteFile(path, script.Bytes(), 0o644))
	const symptom = `(?s)launch 1 passes 1 int32 of dynamic shared memory\n.*launch 2 passes 2 int32 of dynamic shared memory\n.*f: block 0 thread 0 sees 1 int32 of dynamic shared memory\n`
	r := runScript(t, path, 1)[0]
	require.Equal(t, 1, r.code, r.stdout)
	require.Regexp(t, symptom, r.stdout)
	require.Contains(t, r.stdout, "verdict: reproduced use-saw-other-fake")
	if numba := pythonWithNumba(t); numba != "" {
		r := runPython(numba, []string{path}, "--target", "numba", "--swap", "rendition")[0]
		require.Equal(t, 1, r.code, r.stdout)
		require.Regexp(t, symptom, r.stdout)
	}

	one, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	require.Empty(t, pyreplay.Symptom(one))
	for _, file := range pyreplay.UserCode(one) {
		require.NotContains(t, file.Text, "dynamic shared memory", file.Name)
	}
	files, err := pyreplay.EmitTest(rep, "test_aborted.py")
	if err == nil {
		require.NotContains(t, files.Test.Text+files.Support.Text, "dynamic shared memory", "a regression test prints no symptom")
	}
}

// TestKernelPrintsWhichSharedArrayItGot: when two threads of a block both
// miss FakeCUDAShared's allocation, each prints the array it got, and the
// two differ (on the stand-in; on numba's simulator where it is installed).
func TestKernelPrintsWhichSharedArrayItGot(t *testing.T) {
	t.Parallel()
	shape := scenario.Shape{Threads: 2, Blocks: 1, Modules: 1, Names: 1, Shared: true}
	sc, err := shape.Build()
	require.NoError(t, err)
	p, err := check.Lookup("merged")
	require.NoError(t, err)
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Shape: &shape, Shrink: true})
	require.NoError(t, err)
	require.Equal(t, check.KindSharedNotShared, rep.Result.Failure.Kind)
	require.Contains(t, pyreplay.Symptom(sc), "prints which array the thread got")

	var script bytes.Buffer
	require.NoError(t, pyreplay.Emit(&script, rep))
	path := filepath.Join(t.TempDir(), "replay.py")
	require.NoError(t, os.WriteFile(path, script.Bytes(), 0o644))
	arrays := regexp.MustCompile(`(?m)^kernel: block 0 thread [01] got the shared array s at (0x[0-9a-f]+)$`)
	expectTwo := func(r run) {
		t.Helper()
		require.Equal(t, 1, r.code, r.stdout)
		got := arrays.FindAllStringSubmatch(r.stdout, -1)
		require.Len(t, got, 2, r.stdout)
		require.NotEqual(t, got[0][1], got[1][1], "the two threads printed one array:\n%s", r.stdout)
	}
	expectTwo(runScript(t, path, 1)[0])
	if numba := pythonWithNumba(t); numba != "" {
		expectTwo(runPython(numba, []string{path}, "--target", "numba", "--swap", "rendition")[0])
	}
}
