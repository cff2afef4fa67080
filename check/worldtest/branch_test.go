package worldtest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/variants"
)

// Each thread runs the kernel's arms its index selects, each branch's
// condition first (a use of cuda, which the step's event records), and a
// repeat's statements as often as it says: the uses each GPU thread makes,
// in order, on a run of one thread after another.
func TestBranchesFollowTheThreadIndex(t *testing.T) {
	sc := parse(t, `threads 4
module kernels cuda
module dev cuda
device f in dev: if tid >= 2: use cuda.shared; end; use cuda.local
kernel: if tid == 0: use cuda.blockIdx; else: repeat 2: call f; end; end`)
	merged, err := variants.Lookup("merged")
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, merged.Protocol, model.GIL)
	require.NoError(t, err)
	w := model.New(prog)
	w.Trace = true
	texts := map[string][]string{}
	for {
		r := runnable(w)
		if len(r) == 0 {
			break
		}
		u := int(r[0])
		ev := w.Step(u)
		if ev.Kind == model.EvUse {
			name := prog.ThreadName(u)
			texts[name] = append(texts[name], ev.Where+": "+ev.Text)
		}
	}
	cond, inner := "kernel: if cuda.threadIdx.x == 0:", "f: if cuda.threadIdx.x >= 2:"
	require.Equal(t, map[string][]string{
		"T0": {cond, "kernel: cuda.blockIdx"},
		"T1": {cond, inner, "f: cuda.local", inner, "f: cuda.local"},
		"T2": {cond, inner, "f: cuda.shared", "f: cuda.local", inner, "f: cuda.shared", "f: cuda.local"},
		"T3": {cond, inner, "f: cuda.shared", "f: cuda.local", inner, "f: cuda.shared", "f: cuda.local"},
	}, texts)
}

// A host has no thread index: running the kernel inline (two hosts, the
// second finding the first's _kernel_context set), it reaches the
// branch's condition with the first launch's fake installed, and
// FakeCUDAModule.threadIdx raises AttributeError for its _MainThread.
func TestHostBranchRaises(t *testing.T) {
	sc := parse(t, `threads 1
hosts 2
module kernels cuda
kernel: if tid == 0: use cuda.local; end`)
	merged, err := variants.Lookup("merged")
	require.NoError(t, err)
	prog, err := model.NewProgram(sc, merged.Protocol, model.GIL)
	require.NoError(t, err)
	seen := false
	for seed := range uint64(200) {
		w := model.New(prog)
		w.Trace = true
		c := sched.NewSeeded(seed)
		for !seen {
			r := runnable(w)
			if len(r) == 0 {
				break
			}
			u := int(c.Choose(r))
			ev := w.Step(u)
			if u < prog.NumHosts() && strings.HasPrefix(ev.Text, "if cuda.threadIdx.x") {
				require.True(t, ev.Saw.IsFake(), "the host's condition saw %s", ev.Saw)
				require.Equal(t, model.AttributeError, ev.Raised)
				require.True(t, slices.Contains(ev.Effects, "AttributeError: '_MainThread' object has no attribute 'threadIdx'"), "%q", ev.Effects)
				seen = true
			}
		}
	}
	require.True(t, seen, "no walk ran the kernel inline on a host")
}
