package pyreplay_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// otherVersions are the CPythons besides 3.11 found here (3.12, 3.13),
// or skips the test when there is none (fails it with
// SWAPCHECK_REQUIRE_PYTHON).
func otherVersions(t *testing.T) []string {
	t.Helper()
	ps := pythons(t)[1:]
	if len(ps) == 0 {
		testenv.Unavailable(t, testenv.RequirePython, "no CPython 3.12 or 3.13 found (python3.12, python3.13, or under pyenv's root)")
	}
	return ps
}

// onVersion reports whether the i-th case of a test runs on the k-th of
// the n other versions found: with long, on every one; by default on one,
// taken in turn (i mod n, as testenv.Rotate takes them), so that each
// version runs every n-th case and each case runs on one version.
func onVersion(i, k, n int) bool { return long() || i%n == k }

// On CPython 3.12 and 3.13 the rendition target replays as on 3.11 (the
// steps anchored at the same operations under those versions' names, the
// scans in the swap's own frame): the counterexamples of the scenario
// files reproduce, and random walks of the buggy variants show exactly
// the model's kinds. An interrupt is refused in one line. By default each
// counterexample and walk replays on one of the versions, in turn
// (onVersion); SWAPCHECK_LONG=1 replays each on every version.
func TestReplayOnOtherVersions(t *testing.T) {
	t.Parallel()
	pys := otherVersions(t)
	_, files := scenarioFiles(t)
	var scripts, what, kinds []string
	var steps []int
	for _, c := range []struct{ variant, file string }{
		{"naive", "nested-two-modules.txt"}, {"refcount-del", "syncthreads.txt"}, {"merged", "aborted-launch.txt"},
		{"refcount-unregistered", "branching.txt"}, {"global-lock", "raise-fault.txt"}, {"naive", "host-calls.txt"},
		{"refcount-del", "two-hosts.txt"}, {"naive", "atomics-add-sub.txt"}, {"merged", "shared-array.txt"},
	} {
		pr, err := check.Lookup(c.variant)
		require.NoError(t, err)
		rep, err := check.Explore(check.Config{Protocol: pr, Scenario: files[c.file], Atomicity: model.GIL, Shrink: true})
		require.NoError(t, err)
		require.Equal(t, sched.Violation, rep.Result.Verdict)
		scripts = append(scripts, writeScript(t, func(b *bytes.Buffer) error { return pyreplay.Emit(b, rep) }))
		what = append(what, c.variant+" on "+c.file)
		kinds = append(kinds, rep.Result.Failure.Kind)
		steps = append(steps, len(rep.Result.Schedule))
	}
	interrupt := writeScript(t, func(b *bytes.Buffer) error {
		return pyreplay.Emit(b, exploreInterrupt(t, "merged", interruptScenario(t)))
	})
	for k, py := range pys {
		t.Run(filepath.Base(py), func(t *testing.T) {
			var these []int
			var theirs []string
			for i := range scripts {
				if onVersion(i, k, len(pys)) {
					these = append(these, i)
					theirs = append(theirs, scripts[i])
				}
			}
			for j, r := range runPython(py, theirs) {
				i := these[j]
				require.Equal(t, 1, r.code, "%s:\n%s", what[i], r.stdout)
				require.Contains(t, r.stdout, fmt.Sprintf("replay: all %d turns forced", steps[i]), what[i])
				require.Contains(t, r.stdout, "verdict: reproduced "+kinds[i], what[i])
			}
			r := runPython(py, []string{interrupt})[0]
			require.Equal(t, 2, r.code, r.stdout)
			require.Regexp(t, `(?m)^replay failed: an interrupt's landing is forced at CPython 3\.11's eval-breaker checks, .*: run this replay with CPython 3\.11$`, r.stdout)
			// random walks against the model
			walk := 0
			for _, sh := range []scenario.Shape{shape(3), {Threads: 2, Blocks: 2, Calls: 2, Modules: 2, Names: 2}} {
				for _, variant := range []string{"naive", "refcount-unregistered"} {
					walk++
					if !onVersion(walk, k, len(pys)) {
						continue
					}
					pr, err := check.Lookup(variant)
					require.NoError(t, err)
					p, err := model.NewProgram(buildScenario(t, sh), pr, model.GIL)
					require.NoError(t, err)
					for seed := range uint64(count(1, 4)) {
						sch, want := modelKinds(t, p, seed+1)
						script := writeScript(t, func(b *bytes.Buffer) error { return pyreplay.EmitSchedule(b, p, sch, nil) })
						r := runPython(py, []string{script})[0]
						require.Contains(t, r.stdout, "replay: all ", "%s seed %d:\n%s", variant, seed+1, r.stdout)
						require.Equal(t, want, observedKinds(r.stdout), "%s seed %d:\n%s", variant, seed+1, r.stdout)
					}
				}
			}
		})
	}
}
