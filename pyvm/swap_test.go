package pyvm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pysource"
	"swapcheck/pyvm"
)

// runAlone runs thread 0's task to its end and returns what it gave.
func runAlone(t *testing.T, p *pyvm.Program, s *pyvm.State) (pyvm.Value, pyvm.Value) {
	t.Helper()
	var info pyvm.StepInfo
	for n := 0; s.Status(0) == pyvm.Running; n++ {
		require.Less(t, n, 100000, "the task does not end")
		p.Step(s, 0, &info)
		require.Empty(t, info.Fault, "at %s", info.Where())
	}
	return s.Result(0)
}

// swapWorld loads file's swapped_cuda_module on CPython v and sets up one
// thread's world: the module body run, numba.cuda bound, a device module's
// globals g (cuda, x) with its function fn, and a launch's fake.
func swapWorld(t *testing.T, v pyvm.Version, file string) (p *pyvm.Program, s *pyvm.State, g, swap, fn, fake pyvm.Value) {
	t.Helper()
	return swapWorldThreads(t, v, file, 1)
}

// swapWorldThreads is swapWorld with threads threads.
func swapWorldThreads(t *testing.T, v pyvm.Version, file string, threads int) (p *pyvm.Program, s *pyvm.State, g, swap, fn, fake pyvm.Value) {
	t.Helper()
	src, err := pysource.Load(interpreter(t, v), file)
	require.NoError(t, err)
	p, err = src.Program(pyvm.Options{})
	require.NoError(t, err)
	s = p.NewState(threads)
	cuda := s.NewHostModule("numba.cuda", 1)
	s.SetModule("numba.cuda", cuda)
	require.NoError(t, s.RunModule())
	g = s.NewDict()
	s.DictSet(g, p.Str("cuda"), cuda)
	s.DictSet(g, p.Str("x"), pyvm.Int(3))
	fn = s.NewHostFunction("f1", 2, g)
	fake = s.NewHostObject("fake1", 3)
	s.Freeze()
	swap, ok := s.Global("swapped_cuda_module")
	require.True(t, ok)
	return p, s, g, swap, fn, fake
}

// swapAlone loads file's swapped_cuda_module on CPython v, and runs one
// launch's swap of a device module's cuda with no other thread: the
// module body, the call, __enter__, __exit__. It returns the repr of the
// device module's cuda inside the with and after it.
func swapAlone(t *testing.T, v pyvm.Version, file string) (inside, after string) {
	t.Helper()
	p, s, g, swap, fn, fake := swapWorld(t, v, file)

	s.Begin(0, swap, fn, fake)
	cm, exc := runAlone(t, p, s)
	require.Zero(t, exc.K, "the call raised %s", s.ExcString(exc))
	require.NoError(t, s.Enter(0, cm))
	_, exc = runAlone(t, p, s)
	require.Zero(t, exc.K, "__enter__ raised %s", s.ExcString(exc))
	in, _ := s.DictGet(g, p.Str("cuda"))
	require.NoError(t, s.Exit(0, cm, pyvm.None))
	ret, exc := runAlone(t, p, s)
	require.Zero(t, exc.K, "__exit__ raised %s", s.ExcString(exc))
	require.Equal(t, "False", s.Repr(ret), "__exit__ of a with that raised nothing")
	out, _ := s.DictGet(g, p.Str("cuda"))
	return s.Repr(in), s.Repr(out)
}

// notInterpreted are the files of testdata/python the interpreter cannot
// load, and why: their listings are checked against CPython's own bytecode
// (variants' TestListingsMatchBytecode) and switch points (model's
// TestSwitchPointsOfListings) all the same.
var notInterpreted = map[string]string{}

// TestSwapFunctionsRunAlone: every variant's swapped_cuda_module
// (testdata/python), compiled by each CPython found and run by the
// interpreter with no other thread, swaps the device module's cuda to the
// launch's fake inside the with and back to numba.cuda after it; proposed
// stores its dispatcher for good, by design (docs/proposed_fix.md).
func TestSwapFunctionsRunAlone(t *testing.T) {
	files, err := filepath.Glob("../testdata/python/*.py")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".py")
				t.Run(name, func(t *testing.T) {
					if why, ok := notInterpreted[name]; ok {
						t.Skip(why)
					}
					inside, after := swapAlone(t, v, f)
					if name == "proposed" {
						require.Equal(t, "<_CudaDispatcher object>", inside)
						require.Equal(t, inside, after)
						return
					}
					require.Equal(t, "<fake1>", inside)
					require.Equal(t, "<module 'numba.cuda'>", after)
				})
			}
		})
	}
}

// upstreamCommits are numba-cuda's commits of BRIEF.md: the naive swap's
// parent of the fix, the fix's four commits, and the current head.
var upstreamCommits = []string{"55a84eb7", "8356c6f8", "41104c54", "67acbfbd", "d41b90d3"}

// TestUpstreamFilesLoad: numba-cuda's own kernelapi.py at each commit of
// the fix, and at the clone's HEAD, compiled by each CPython found, passes
// the interpreter's refusal pass (every opcode, builtin and object the
// swap function reaches is supported), and its swap runs alone as the
// rendition of testdata/python does. It needs a clone of NVIDIA/numba-cuda
// (SWAPCHECK_NUMBA_CUDA_REPO, as model's TestFidelityScript).
func TestUpstreamFilesLoad(t *testing.T) {
	repo := os.Getenv("SWAPCHECK_NUMBA_CUDA_REPO")
	if repo == "" {
		t.Skip("SWAPCHECK_NUMBA_CUDA_REPO is not set: no clone of NVIDIA/numba-cuda to read kernelapi.py from")
	}
	dir := t.TempDir()
	var files []string
	for _, c := range append(upstreamCommits, "HEAD") {
		out, err := exec.Command("git", "--git-dir", repo, "show", c+":numba_cuda/numba/cuda/simulator/kernelapi.py").Output()
		if err != nil {
			out, err = exec.Command("git", "-C", repo, "show", c+":numba_cuda/numba/cuda/simulator/kernelapi.py").Output()
		}
		require.NoError(t, err, "git show %s:kernelapi.py in %s", c, repo)
		f := filepath.Join(dir, "kernelapi-"+c+".py")
		require.NoError(t, os.WriteFile(f, out, 0o644))
		files = append(files, f)
	}
	for _, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			for _, f := range files {
				t.Run(filepath.Base(f), func(t *testing.T) {
					src, err := pysource.Load(interpreter(t, v), f)
					require.NoError(t, err)
					_, err = src.Program(pyvm.Options{})
					require.NoError(t, err)
					inside, after := swapAlone(t, v, f)
					require.Equal(t, "<fake1>", inside)
					require.Equal(t, "<module 'numba.cuda'>", after)
				})
			}
		})
	}
}
