package pyreplay_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pyreplay"
	"swapcheck/scenario"
)

// TestUserCodeRunsOnNumba runs the user code of the default scenario, of
// one with an import cycle and (with SWAPCHECK_LONG) of every scenario
// file on numba's own CUDA simulator: it must import and launch as
// written. A run may end in the race itself (an AttributeError on cuda),
// rarely at the default switch interval; any other error fails the test.
// (The replays run the same module files, UserCode's, on every scenario
// file: TestReplayOfEveryCounterexample.)
func TestUserCodeRunsOnNumba(t *testing.T) {
	t.Parallel()
	py := pythonWithNumba(t)
	type named struct {
		name string
		sc   *scenario.Scenario
	}
	var scenarios []named
	for _, sh := range []scenario.Shape{
		scenario.DefaultShape,
		// dev1 calls into dev2 and dev2 into dev1: an import cycle
		{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 2, Nest: 1},
	} {
		sc, err := sh.Build()
		require.NoError(t, err)
		scenarios = append(scenarios, named{fmt.Sprintf("%+v", sh), sc})
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.txt"))
	require.NoError(t, err)
	if !long() {
		files = nil
	}
	for _, path := range files {
		f, err := os.Open(path)
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err)
		scenarios = append(scenarios, named{filepath.Base(path), sc})
	}
	for _, tc := range scenarios {
		sc := tc.sc
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code := pyreplay.UserCode(sc)
			require.Equal(t, sc.Modules[0].Name+".py", code[0].Name)
			require.Equal(t, "main.py", code[len(code)-1].Name)
			for _, f := range code {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Text), 0o644))
			}
			cmd := exec.Command(py, "main.py")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NUMBA_ENABLE_CUDASIM=1")
			out, err := cmd.CombinedOutput()
			if err != nil && !strings.Contains(string(out), "has no attribute") {
				t.Fatalf("%s main.py: %v\n%s", py, err, out)
			}
		})
	}
}

// A branch on the thread index renders as the user writes it, the
// condition reading cuda.threadIdx.x, and a repeat as a for loop, each
// arm indented under its header.
func TestUserCodeBranches(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse(strings.NewReader(`module kernels cuda cu
module dev cuda
device f in dev: use cuda.local
device g in dev: if tid != 1: pass; else: use cuda.shared; end
kernel: if tid < 2: call f; repeat 2: call g; end; else: use cu.threadIdx; end; syncthreads`))
	require.NoError(t, err)
	code := pyreplay.UserCode(sc)
	require.Equal(t, "kernels.py", code[0].Name)
	require.Contains(t, code[0].Text, `from dev import f, g


@cuda.jit
def kernel():
    if cuda.threadIdx.x < 2:
        f()
        for _ in range(2):
            g()
    else:
        i = cu.threadIdx.x
    cuda.syncthreads()
`)
	require.Contains(t, code[1].Text, `def g():
    if cuda.threadIdx.x != 1:
        pass
    else:
        s = cuda.shared.array(1, numba.int32)
`)
}
