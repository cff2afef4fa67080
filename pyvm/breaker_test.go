package pyvm_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/switchgolden"
	"swapcheck/pyvm"
)

// TestBreakerChecksMatchCPython: where the interpreter says a step of a
// variant's swapped_cuda_module ends at an eval-breaker check
// (StepInfo.Check) agrees with CPython 3.11 and 3.12, as the switch-point
// fixture (testdata/cpython/switchpoints.py) recorded it in its golden
// files (3.12's static column is 3.11's table by opname): every
// check the interpreter makes is at an instruction CPython's code checks
// at ("breaker"), or hands over to a caller that does; and at every
// instruction where an interrupt set just before it landed (CPython
// checked there), among those the run executes, the interpreter checks.
func TestBreakerChecksMatchCPython(t *testing.T) {
	for v, path := range map[pyvm.Version]string{
		pyvm.V311: switchgolden.Path,
		pyvm.V312: "testdata/cpython/switchpoints-3.12.golden.txt",
		pyvm.V313: "testdata/cpython/switchpoints-3.13.golden.txt",
	} {
		t.Run("python"+v.String(), func(t *testing.T) { breakerChecksMatch(t, v, path) })
	}
}

func breakerChecksMatch(t *testing.T, v pyvm.Version, path string) {
	golden, err := switchgolden.Read(filepath.Join("..", filepath.FromSlash(path)))
	require.NoError(t, err)
	files, err := filepath.Glob("../testdata/python/*.py")
	require.NoError(t, err)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".py")
		t.Run(name, func(t *testing.T) {
			if why, ok := notInterpreted[name]; ok {
				t.Skip(why)
			}
			i := slices.IndexFunc(golden, func(g switchgolden.Func) bool { return g.Name == name+".swapped_cuda_module" })
			require.GreaterOrEqual(t, i, 0, "the golden has no %s.swapped_cuda_module", name)
			breaker := map[int]string{} // CPython's code checks there
			landed := map[int]string{}  // an interrupt set just before it landed at it
			outside := map[int]bool{}   // an interrupt set before it landed in the caller
			for _, in := range golden[i].Instrs {
				if in.Static == "breaker" {
					breaker[in.Offset] = in.Opname
				}
				if slices.ContainsFunc(in.Cold, func(l string) bool { return strings.HasSuffix(l, ":"+strconv.Itoa(in.Offset)+"/direct") }) {
					landed[in.Offset] = in.Opname
				}
				outside[in.Offset] = slices.ContainsFunc(in.Cold, func(l string) bool { return strings.Contains(l, ":outside/") })
			}
			ran, checked, inCall := breakerRun(t, v, f)
			var claimed, missed []string
			for off, op := range checked {
				_, ok := breaker[off]
				// A step that leaves the frame ends at its caller's check:
				// YIELD_VALUE at __enter__'s CALL of next() (the golden's
				// "outside" landing); RETURN_GENERATOR at the first check
				// of contextlib's _GeneratorContextManager.__init__ after
				// self.gen = func(...) (its getattr(func, "__doc__")),
				// with only stores to the new, unpublished object between.
				ok = ok || outside[off] || op == "RETURN_GENERATOR"
				if !ok {
					claimed = append(claimed, op+"@"+strconv.Itoa(off))
				}
			}
			for off, op := range landed {
				// A call's check, after its callee returned, may fall in
				// the callee's last step (a native one, or the
				// comprehension's return): a check within the call counts.
				if ran[off] && checked[off] == "" && !(op == "CALL" && inCall[off]) {
					missed = append(missed, op+"@"+strconv.Itoa(off))
				}
			}
			slices.Sort(claimed)
			slices.Sort(missed)
			require.NotEmpty(t, checked, "the run checked nowhere")
			t.Logf("python %s: %d instructions ran, %d ended at a check; CPython saw interrupts land at %d", v, len(ran), len(checked), len(landed))
			require.Empty(t, claimed, "the interpreter checks where CPython 3.11 does not")
			require.Empty(t, missed, "CPython 3.11 checks where the interpreter does not")
		})
	}
}

// breakerRun runs file's swap alone on version v, as swapAlone does, and
// returns the offsets of swapped_cuda_module's instructions that ran, of
// those whose step ended at a check (with their opnames), and of those
// (calls) within which a step of the callee ended at a check.
func breakerRun(t *testing.T, v pyvm.Version, file string) (ran map[int]bool, checked map[int]string, inCall map[int]bool) {
	t.Helper()
	p, s, _, swap, fn, fake := swapWorld(t, v, file)
	ran, checked, inCall = map[int]bool{}, map[int]string{}, map[int]bool{}
	last := -1
	run := func() {
		var info pyvm.StepInfo
		for n := 0; s.Status(0) == pyvm.Running; n++ {
			require.Less(t, n, 100000)
			p.Step(s, 0, &info)
			require.Empty(t, info.Fault)
			if info.Code == nil || info.Code.QualName != "swapped_cuda_module" {
				// inside what the last instruction of the function
				// called (a comprehension, dict(), a native step)
				if info.Check && last >= 0 {
					inCall[last] = true
				}
				continue
			}
			in := info.Code.Instrs[info.Instr]
			ran[in.Offset] = true
			last = in.Offset
			if info.Check {
				checked[in.Offset] = in.OpName
			}
		}
	}
	s.Begin(0, swap, fn, fake)
	run()
	cm, _ := s.Result(0)
	require.NoError(t, s.Enter(0, cm))
	run()
	require.NoError(t, s.Exit(0, cm, pyvm.None))
	run()
	return ran, checked, inCall
}
