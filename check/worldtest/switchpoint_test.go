package worldtest_test

// These tests tie the model's switch points (model/switchpoint.go, and
// each listing's Instr.Check and CheckFirst) to the golden file of
// testdata/cpython/switchpoints.py, so that a change of the fixture's
// findings fails here, and check that mode gil-breaker switches threads
// only there.

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/switchgolden"
	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/variants"
)

// goldenPath is the golden file, from this directory.
var goldenPath = filepath.Join("..", "..", filepath.FromSlash(switchgolden.Path))

// readGolden parses testdata/cpython/switchpoints.golden.txt by name
// (go test ./model -run SwitchPoints -switchpoints.update rewrites it).
func readGolden(t *testing.T) map[string]switchgolden.Func {
	t.Helper()
	fns, err := switchgolden.Read(goldenPath)
	require.NoError(t, err)
	out := map[string]switchgolden.Func{}
	for _, fn := range fns {
		out[fn.Name] = fn
	}
	require.NotEmpty(t, out, "no function in %s", goldenPath)
	return out
}

// lines splits an instruction's line field, "27" or "107 (k:128)", into
// its line and kernel.py line (0 when none).
func lines(t *testing.T, field string) (line, kernel int) {
	t.Helper()
	l, k, _ := strings.Cut(field, " (k:")
	line, err := strconv.Atoi(l)
	require.NoError(t, err, "line %q", field)
	if k != "" {
		kernel, err = strconv.Atoi(strings.TrimSuffix(k, ")"))
		require.NoError(t, err, "line %q", field)
	}
	return line, kernel
}

// firstLine is the line of a function's header, "name (file:N)".
func firstLine(t *testing.T, fn switchgolden.Func) int {
	t.Helper()
	i := strings.LastIndexByte(fn.Header, ':')
	n, err := strconv.Atoi(strings.TrimSuffix(fn.Header[i+1:], ")"))
	require.NoError(t, err, "header %q", fn.Header)
	return n
}

// landingOps maps each line of fn to the opnames at which an interrupt
// landed there (directly, or inside what the instruction called): the
// eval-breaker checks observed. A warm PRECALL landing counts as its CALL.
func landingOps(t *testing.T, fn switchgolden.Func) map[int][]string {
	t.Helper()
	byOffset := map[int]switchgolden.Instr{}
	for _, in := range fn.Instrs {
		byOffset[in.Offset] = in
	}
	out := map[int][]string{}
	for _, in := range fn.Instrs {
		for _, s := range append(slices.Clone(in.Cold), in.Warm...) {
			_, rest, _ := strings.Cut(s, ":")
			where, _, _ := strings.Cut(rest, "/")
			off, err := strconv.Atoi(where)
			if err != nil {
				continue // outside the function
			}
			at, ok := byOffset[off]
			require.True(t, ok, "landing %q at no instruction", s)
			op := at.Opname
			if op == "PRECALL" {
				op = "CALL"
			}
			line, _ := lines(t, at.Line)
			if !slices.Contains(out[line], op) {
				out[line] = append(out[line], op)
			}
		}
	}
	return out
}

var opname = regexp.MustCompile(`\b[A-Z][A-Z_]{2,}\b`)

// TestSwitchPointsOfListings: every listing's claims of eval-breaker
// checks (Instr.Check, CheckFirst) are the golden file's landings, line
// by line. A line where an interrupt landed has an instruction that
// claims a check, or is the generator's start (its RESUME) or its yield
// (the RESUME after it), which the model counts as a with statement's
// boundary; an instruction that claims a check is on such a line; one
// that claims none names no opcode at which an interrupt landed on its
// line (the acquire of "with lock:" is BEFORE_WITH, its exit the CALL).
func TestSwitchPointsOfListings(t *testing.T) {
	golden := readGolden(t)
	for _, p := range variants.Protocols() {
		t.Run(p.Name, func(t *testing.T) {
			name := strings.TrimSuffix(p.Source, ".py") + ".swapped_cuda_module"
			fn, ok := golden[name]
			require.True(t, ok, "%s has no %s", goldenPath, name)
			ops := landingOps(t, fn)
			claimed := map[int]bool{firstLine(t, fn): true}
			for _, in := range p.Code {
				if in.Yield {
					claimed[in.Line] = true
					continue
				}
				if in.Check != model.CheckNone || in.CheckFirst {
					claimed[in.Line] = true
					// The check is at an opcode the instruction
					// names, or, for a pass of a comprehension or
					// generator (FOR_ITER), inside it: a callee's
					// landing at the CALL that runs it.
					want := opname.FindAllString(in.Bytecode, -1)
					if slices.Contains(want, "FOR_ITER") {
						want = append(want, "CALL")
					}
					require.True(t, slices.ContainsFunc(want, func(op string) bool { return slices.Contains(ops[in.Line], op) }),
						"%s:%d (%s, %s) claims an eval-breaker check, but interrupts landed on the line only at %v", p.Source, in.Line, in.Text, in.Bytecode, ops[in.Line])
					continue
				}
				for _, op := range opname.FindAllString(in.Bytecode, -1) {
					require.NotContains(t, ops[in.Line], op,
						"%s:%d (%s, %s) claims no check, but an interrupt landed at its %s", p.Source, in.Line, in.Text, in.Bytecode, op)
				}
			}
			for line, at := range ops {
				require.True(t, claimed[line],
					"%s:%d: interrupts landed at %v, but no instruction of the listing claims a check there", p.Source, line, at)
			}
		})
	}
}

// TestSwitchPointsSyncthreads: between syncthreads' "if self.abort:"
// (kernel.py:215) and "self.syncthreads_blocked = True" (k:218) no
// instruction checks or calls, which is why the model keeps the GIL after
// the barrier's first sub-step; the next lines (k:219 wait, k:220 clear)
// call, so the other sub-steps end at switch points.
func TestSwitchPointsSyncthreads(t *testing.T) {
	fn, ok := readGolden(t)["launch.BlockThread.syncthreads"]
	require.True(t, ok)
	calls := map[int]bool{}
	for _, in := range fn.Instrs {
		_, k := lines(t, in.Line)
		switch k {
		case 215, 218:
			require.Equal(t, "-", in.Static, "k:%d %s@%d", k, in.Opname, in.Offset)
		}
		if in.Static == "breaker" {
			calls[k] = true
		}
	}
	require.True(t, calls[219] && calls[220], "syncthreads' wait() and clear() calls check: %v", calls)
}

// TestGILBreakerSwitchesOnlyAtSwitchPoints walks every variant at random in
// gil and gil-breaker: after a step that kept the GIL (Event.KeepsGIL,
// traced), gil-breaker offers that thread alone, and gil every thread it
// offered before; after any other step gil-breaker offers what gil does.
// A runnable thread's footprint is All (for DPOR) exactly when it keeps
// the GIL or its step will leave it keeping it.
// Some steps of every variant keep the GIL (naive's only at the
// barrier's first sub-step).
func TestGILBreakerSwitchesOnlyAtSwitchPoints(t *testing.T) {
	sc := parse(t, `threads 3
module kernels cuda
module helpers cuda
device f in helpers: use cuda.local
kernel: use cuda.threadIdx; call f; syncthreads; call f`)
	for _, p := range variants.Protocols() {
		t.Run(p.Name, func(t *testing.T) {
			breaker := model.New(program(t, sc, p, model.GILBreaker))
			plain := model.New(program(t, sc, p, model.GIL))
			breaker.Trace, plain.Trace = true, true
			kept := 0
			for seed := range uint64(20) {
				b, g := breaker.Clone(), plain.Clone()
				b.Trace, g.Trace = true, true
				c := sched.NewSeeded(seed)
				for {
					rb, _ := b.AppendRunnable(nil)
					rg, _ := g.AppendRunnable(nil)
					if h := b.HolderForTest(); h >= 0 {
						require.Equal(t, []sched.ThreadID{sched.ThreadID(h)}, rb, "seed %d", seed)
						require.Contains(t, rg, sched.ThreadID(h), "seed %d", seed)
						for _, u := range rg {
							if int(u) != h {
								require.Equal(t, sched.Blocked, b.Status(int(u)), "seed %d: thread %d", seed, u)
							}
						}
					} else {
						require.Equal(t, rg, rb, "seed %d", seed)
					}
					if len(rb) == 0 {
						break
					}
					// A footprint is All exactly when its thread keeps
					// the GIL or its step will leave it keeping it; a
					// shared world's (stress) over-approximates.
					for _, u := range rb {
						stepped := b.Clone()
						stepped.Step(int(u))
						want := b.HolderForTest() == int(u) || stepped.HolderForTest() == int(u)
						require.Equal(t, want, b.Footprint(int(u)).All, "seed %d: thread %d", seed, u)
						if want {
							require.True(t, b.Share().Footprint(int(u)).All, "seed %d: thread %d, shared", seed, u)
						}
					}
					th := int(c.Choose(rb))
					evb, evg := b.Step(th), g.Step(th)
					require.Equal(t, evg.KeepsGIL(), evb.KeepsGIL(), "seed %d", seed)
					require.Equal(t, evb.KeepsGIL(), b.HolderForTest() == th, "seed %d: %s", seed, evb.Text)
					if evb.KeepsGIL() {
						kept++
					}
				}
			}
			require.Positive(t, kept, "no step kept the GIL")
		})
	}
}
