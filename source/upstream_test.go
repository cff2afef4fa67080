package source_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/sched"
	"swapcheck/source"
	"swapcheck/variants"
)

// upstreamVariants are numba-cuda's commits of the fix and the variant
// each one's swapped_cuda_module is (BRIEF.md, the listings' headers).
var upstreamVariants = []struct{ commit, variant string }{
	{"55a84eb7", "naive"},
	{"8356c6f8", "global-lock"},
	{"41104c54", "refcount-unregistered"},
	{"67acbfbd", "refcount-del"},
	{"d41b90d3", "merged"},
}

// upstreamFile writes numba-cuda's kernelapi.py at commit, unmodified, as
// kernelapi.py in a directory of its own, from the clone repo names (a
// git directory or a work tree), and returns its path.
func upstreamFile(t *testing.T, repo, commit string) string {
	t.Helper()
	spec := commit + ":numba_cuda/numba/cuda/simulator/kernelapi.py"
	out, err := exec.Command("git", "--git-dir", repo, "show", spec).Output()
	if err != nil {
		out, err = exec.Command("git", "-C", repo, "show", spec).Output()
	}
	require.NoError(t, err, "git show %s in %s", spec, repo)
	f := filepath.Join(t.TempDir(), "kernelapi.py")
	require.NoError(t, os.WriteFile(f, out, 0o644))
	return f
}

// TestUpstreamFilesAgree: numba-cuda's own kernelapi.py at each commit of
// the fix, unmodified, gives the verdicts and the reachable kinds of the
// variant's listing (as TestListingsAgree compares them) on every world
// source.Load takes, with CPython 3.11 and 3.12 bytecode, under gil and
// gil-breaker; SWAPCHECK_LONG=1 adds the free-threaded modes and 3.13. It
// needs a clone of NVIDIA/numba-cuda named by SWAPCHECK_NUMBA_CUDA_REPO
// (as pyvm's TestUpstreamFilesLoad), and skips, saying so, without one.
func TestUpstreamFilesAgree(t *testing.T) {
	repo := os.Getenv("SWAPCHECK_NUMBA_CUDA_REPO")
	if repo == "" {
		t.Skip("SWAPCHECK_NUMBA_CUDA_REPO is not set: no clone of NVIDIA/numba-cuda to read kernelapi.py from")
	}
	versions := []pyvm.Version{pyvm.V311, pyvm.V312}
	modes := []model.Atomicity{model.GIL, model.GILBreaker}
	if testenv.Long() {
		versions, modes = pyvm.Versions, model.Atomicities()
	}
	files := map[string]string{}
	for _, u := range upstreamVariants {
		files[u.commit] = upstreamFile(t, repo, u.commit)
	}
	for _, ver := range versions {
		t.Run("python"+ver.String(), func(t *testing.T) {
			probe, err := pysource.Load(interpreter(t, ver), files[upstreamVariants[0].commit])
			require.NoError(t, err)
			worlds, _ := agreeWorlds(t, probe)
			for _, u := range upstreamVariants {
				t.Run(u.commit+"-"+u.variant, func(t *testing.T) {
					v, err := variants.Lookup(u.variant)
					require.NoError(t, err)
					src, err := pysource.Load(interpreter(t, ver), files[u.commit])
					require.NoError(t, err)
					compareWorlds(t, v, src, worlds, modes, -1, fmt.Sprintf("kernelapi.py at %s, the %s listing, CPython %s", u.commit, u.variant, ver))
				})
			}
		})
	}
}

// debianKernelAPI is Debian's python3-numba 0.56.4 simulator, whose swap
// is naive.
const debianKernelAPI = "/usr/lib/python3/dist-packages/numba/cuda/simulator/kernelapi.py"

// debianStates bounds the states a search of Debian's file on -threads 2
// may store before it meets the race: measured, 59 states (a 28-step
// counterexample) on 3.11 and on 3.12; the naive listing's dfs stores
// 126 (go run ./cmd/explore -protocol naive -strategy dfs).
const debianStates = 100

// TestDebianNumbaNaive: numba's own simulator file, as Debian installs it
// (skipped where it is absent), gives naive's race on -threads 2 from
// source: use-saw-real, found within debianStates states, on CPython
// 3.11 and 3.12.
func TestDebianNumbaNaive(t *testing.T) {
	if _, err := os.Stat(debianKernelAPI); err != nil {
		t.Skipf("%s is absent (apt-get install python3-numba): %v", debianKernelAPI, err)
	}
	sc, err := check.TableShapes[0].Shape.Build()
	require.NoError(t, err)
	for _, ver := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		t.Run("python"+ver.String(), func(t *testing.T) {
			src, err := pysource.Load(interpreter(t, ver), debianKernelAPI)
			require.NoError(t, err)
			p, err := source.Load(src, sc, model.GIL)
			require.NoError(t, err)
			res := sched.States{}.Run(source.New(p), sched.Limits{})
			require.Equal(t, sched.Violation, res.Verdict)
			require.Equal(t, source.KindUseSawReal, res.Failure.Kind, res.Failure.Message)
			require.LessOrEqual(t, res.Stats.States, int64(debianStates), "the race took %d states to meet", res.Stats.States)
			t.Logf("%s after %d states, %d steps: %s", res.Failure.Kind, res.Stats.States, len(res.Schedule), res.Failure.Message)
		})
	}
}
