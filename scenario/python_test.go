package scenario_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/scenario"
)

const branchy = `threads 2
blocks 1
launches 1
module kernels cuda
module dev1 cuda cu
device f1 in dev1: use cu.local; syncthreads
kernel: if tid == 0: call f1; else: repeat 2: use cuda.threadIdx; end; raise; end
`

func parseBranchy(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(strings.NewReader(branchy))
	require.NoError(t, err)
	return sc
}

// Unroll runs a body as one thread does: its branch's condition, then the
// arm it takes, a repeat's body as often as it says; a host (tid -1) stops
// at the first condition.
func TestUnrollIsOneThreadsRun(t *testing.T) {
	sc := parseBranchy(t)
	for _, tc := range []struct {
		tid  int
		want []string
	}{
		{0, []string{"if", "call f1"}},
		{1, []string{"if", "use cuda.threadIdx", "use cuda.threadIdx", "raise"}},
		{-1, []string{"if"}},
	} {
		var got []string
		scenario.Unroll(sc.Kernel, tc.tid, 0, func(s *scenario.Stmt) bool {
			text := sc.StmtString(0, *s)
			if s.Kind == scenario.OpIf {
				text = "if"
			}
			got = append(got, text)
			return false
		})
		require.Equal(t, tc.want, got, "tid %d", tc.tid)
	}
	n := 0
	require.True(t, scenario.Unroll(sc.Kernel, 1, 0, func(*scenario.Stmt) bool { n++; return n == 2 }), "visit stops it")
	require.Equal(t, 2, n)
}

// What each statement is in Python: whether it steps and loads cuda, how
// a user writes it, and the arms of the compound ones.
func TestStatementsInPython(t *testing.T) {
	sc := parseBranchy(t)
	f1 := sc.Functions[0].Body
	use, sync := f1[0], f1[1]
	branch := sc.Kernel[0]
	call, repeat, raise := branch.Then[0], branch.Else[0], branch.Else[1]

	for _, tc := range []struct {
		name         string
		s            scenario.Stmt
		steps, reads bool
	}{
		{"use", use, true, true}, {"syncthreads", sync, true, true}, {"if", branch, true, true},
		{"call", call, true, false}, {"repeat", repeat, false, false}, {"raise", raise, false, false},
	} {
		require.Equal(t, tc.steps, tc.s.Steps(), "%s steps", tc.name)
		require.Equal(t, tc.reads, tc.s.ReadsCuda(), "%s reads cuda", tc.name)
	}

	never := func(int) bool { return false }
	require.Equal(t, "l = cu.local.array(1, numba.int32)", sc.UserText(1, use, never))
	require.Equal(t, "cuda.syncthreads()", sc.UserText(1, sync, never), "syncthreads loads the module's first name")
	require.Equal(t, "f1()", sc.UserText(0, call, never))
	require.Equal(t, "dev1.f1()", sc.UserText(0, call, func(m int) bool { return m == 1 }))
	require.Equal(t, `raise RuntimeError("the kernel fails")`, sc.UserText(0, raise, never))

	arms := sc.Arms(0, branch)
	require.Len(t, arms, 2)
	require.Equal(t, "if cuda.threadIdx.x == 0:", arms[0].Header)
	require.Equal(t, "else:", arms[1].Header)
	require.Equal(t, branch.Else, arms[1].Body)
	require.Equal(t, []scenario.Arm{{Header: "for _ in range(2):", Body: repeat.Body}}, sc.Arms(0, repeat))
	require.Nil(t, sc.Arms(0, call))
}

// A branch may test the block's index (bid, cuda.blockIdx.x) and take
// either index modulo a number; the file's spelling, the Python it stands
// for and which threads take it follow.
func TestBranchOnBlockAndModulo(t *testing.T) {
	sc, err := scenario.Parse(strings.NewReader(`threads 4
blocks 2
module kernels cuda
module dev1 cuda
device f1 in dev1: use cuda.local
kernel: if bid == 1: call f1; end; if tid % 2 != 0: use cuda.threadIdx; end
`))
	require.NoError(t, err)
	byBid, byTid := sc.Kernel[0], sc.Kernel[1]
	require.Equal(t, "if bid == 1: call f1; end", sc.StmtString(0, byBid))
	require.Equal(t, "if tid % 2 != 0: use cuda.threadIdx; end", sc.StmtString(0, byTid))
	require.Equal(t, "if cuda.blockIdx.x == 1:", sc.PythonText(0, byBid))
	require.Equal(t, "if cuda.threadIdx.x % 2 != 0:", sc.PythonText(0, byTid))
	require.Equal(t, "blockIdx", byBid.Cond.Attr())
	for bid := range 2 {
		for tid := range 4 {
			require.Equal(t, bid == 1, byBid.Cond.Holds(tid, bid), "bid %d", bid)
			require.Equal(t, tid%2 != 0, byTid.Cond.Holds(tid, bid), "tid %d", tid)
		}
	}
	// the canonical rendering parses back to the same scenario
	again, err := scenario.Parse(strings.NewReader(sc.String()))
	require.NoError(t, err)
	require.Equal(t, sc.String(), again.String())
	require.Equal(t, sc.Kernel, again.Kernel)
}

// A use may read further attributes and store its value: the first
// attribute is the use, and must be one the fake module has.
func TestUseChainsAndTargets(t *testing.T) {
	sc, err := scenario.Parse(strings.NewReader(`module kernels cuda
module dev1 cuda
device f1 in dev1: use cuda.local.array; i = cuda.threadIdx.x
kernel: call f1; b = cuda.blockIdx
`))
	require.NoError(t, err)
	body := sc.Functions[0].Body
	require.Equal(t, scenario.Stmt{Kind: scenario.OpUse, Attr: "local", Rest: "array"}, body[0])
	require.Equal(t, scenario.Stmt{Kind: scenario.OpUse, Attr: "threadIdx", Rest: "x", Target: "i"}, body[1])
	require.Equal(t, "use cuda.local.array; i = cuda.threadIdx.x", sc.BodyString(1, body))
	require.Equal(t, "i = cuda.threadIdx.x", sc.PythonText(1, body[1]))
	require.Equal(t, "i = cuda.threadIdx.x", sc.UserText(1, body[1], func(int) bool { return false }))
	again, err := scenario.Parse(strings.NewReader(sc.String()))
	require.NoError(t, err)
	require.Equal(t, sc.String(), again.String())

	for text, want := range map[string]string{
		"kernel: use cuda.nonexistent_attr": "line 2: kernel: cuda.nonexistent_attr: the fake module (FakeCUDAModule) has no attribute nonexistent_attr (it has atomic,",
		"kernel: i = cuda.nope.x":           "line 2: kernel: cuda.nope: the fake module (FakeCUDAModule) has no attribute nope",
		"kernel: 1i = cuda.local":           `line 2: kernel: want TARGET = NAME.ATTR (TARGET a Python name), got "1i = cuda.local"`,
		"kernel: use cuda.local.":           `line 2: kernel: want use NAME.ATTR (or NAME.ATTR.ATTR..., or TARGET = NAME.ATTR), got "use cuda.local."`,
	} {
		_, err := scenario.Parse(strings.NewReader("module kernels cuda\n" + text + "\n"))
		require.Error(t, err, text)
		require.Contains(t, err.Error(), want)
		require.NotContains(t, err.Error(), "\n")
	}
}

// A module other than the kernel's may bind no name to cuda: it renders
// as "module NAME" and decorates with numba.cuda.jit.
func TestModuleWithoutCuda(t *testing.T) {
	text := "threads 2\nblocks 1\nlaunches 1\nmodule kernels cuda\nmodule mathlib\ndevice square in mathlib: pass\nkernel: call square\n"
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, text, sc.String())
	require.Empty(t, sc.Modules[1].Names)
	require.Equal(t, "numba.cuda.jit", sc.Modules[1].Jit())
	require.Equal(t, "cuda.jit", sc.Modules[0].Jit())
}

// Device functions may take parameters and calls pass arguments: whole
// numbers, the function's parameters, or names assigned before the call
// in its block or the blocks around it.
func TestCallArguments(t *testing.T) {
	text := `threads 2
blocks 1
launches 1
module kernels cuda
module helpers cuda
module mathlib
device square(x, y) in mathlib: pass
device f(n) in helpers: use cuda.local; call square(n, 2)
kernel: i = cuda.threadIdx.x; call f(i); repeat 2: j = cuda.blockIdx.x; call f(j); end
host: call square(1, 2); launch
`
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, text, sc.String())
	require.Equal(t, []string{"x", "y"}, sc.Functions[0].Params)
	require.Equal(t, "def square(x, y):", sc.Functions[0].Def())
	call := sc.Kernel[1]
	require.Equal(t, []string{"i"}, call.Args)
	require.Equal(t, "f(i)", sc.PythonText(0, call))
	require.Equal(t, "helpers.f(i)", sc.UserText(0, call, func(int) bool { return true }))
	require.Equal(t, []string{"1", "2"}, sc.Host[0].Args)

	mods := "module kernels cuda\nmodule lib\ndevice sq(x) in lib: pass\n"
	for body, want := range map[string]string{
		"kernel: call sq":       "call sq: it takes 1 arguments (x), given 0",
		"kernel: call sq(1, 2)": "call sq: it takes 1 arguments (x), given 2",
		"kernel: call sq(k)":    "call sq: argument k is neither a whole number nor a name the caller has",
		"kernel: repeat 2: k = cuda.threadIdx.x; end; call sq(k)":    "call sq: argument k is neither",
		"kernel: if tid == 0: k = cuda.local; else: call sq(k); end": "call sq: argument k is neither",
		"kernel: call sq(1":                      `want call FUNC or call FUNC(ARG, ...)`,
		"kernel: pass\nhost: call sq(x); launch": "call sq: argument x is neither",
	} {
		_, err := scenario.Parse(strings.NewReader(mods + body + "\n"))
		require.Error(t, err, body)
		require.Contains(t, err.Error(), want, body)
	}
	_, err = scenario.Parse(strings.NewReader("module kernels cuda\ndevice f(a, a) in kernels: pass\nkernel: call f(1, 2)\n"))
	require.ErrorContains(t, err, "device f: parameters:")
}

// A module line may declare globals not bound to cuda, NAME=VALUE, in
// their order among the names; the canonical rendering keeps it.
func TestOtherGlobals(t *testing.T) {
	text := "threads 2\nblocks 1\nlaunches 1\nmodule kernels np=numpy cuda SIZE=32\nmodule lib N=4\ndevice f in lib: pass\nkernel: call f\n"
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, text, sc.String())
	require.Equal(t, []string{"cuda"}, sc.Modules[0].Names)
	require.Equal(t, []scenario.Other{{Name: "np", Value: "numpy", At: 0}, {Name: "SIZE", Value: "32", At: 1}}, sc.Modules[0].Others)
	require.Equal(t, []string{"np=numpy", "cuda", "SIZE=32"}, sc.Modules[0].Declared())
	for line, want := range map[string]string{
		"module kernels cuda x=1+1":    `module kernels: x="1+1": the value of another global is a whole number or what it stands for`,
		"module kernels cuda cuda=1":   "module kernels: cuda appears twice",
		"module kernels cuda 1x=numpy": `module kernels: "1x" is not a Python name`,
		"module kernels np=numpy":      "module kernels is the kernel's (the first module), which needs a global bound to cuda",
	} {
		_, err := scenario.Parse(strings.NewReader(line + "\nkernel: pass\n"))
		require.ErrorContains(t, err, want, line)
	}
}
