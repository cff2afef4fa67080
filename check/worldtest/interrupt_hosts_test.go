package worldtest_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/switchgolden"
	"swapcheck/model"
	"swapcheck/sched"
	"swapcheck/swap"
)

// TestSwitchPointsSeveralHosts pins, from the golden file, where an
// interrupt lands in host 0's several-host steps, which the model's
// landings (interrupt.go) stand for:
//   - FakeCUDAKernel.__call__'s device check (k:84) has no check of its
//     own: an interrupt pending there lands inside the next call, that of
//     normalize_kernel_dimensions (k:89) when it read None (scenario
//     launch), that of _get_kernel_context (k:85) when it read another
//     host's fake (scenario inline): landDevice;
//   - _push_kernel_context's assert (k:31) and store (k:32) have no check:
//     an interrupt pending at the assert lands after the store, once the
//     generator yielded (outside, in __enter__: landContext); when the
//     assert fails (scenario push_busy), at the CALL that makes the
//     AssertionError, whose exception then leaves as the AssertionError
//     would;
//   - the inline run (k:85-86) lands where a host's device call does.
func TestSwitchPointsSeveralHosts(t *testing.T) {
	golden := readGolden(t)
	call, ok := golden["launch.FakeCUDAKernel.__call__"]
	require.True(t, ok)
	push, ok := golden["launch._push_kernel_context"]
	require.True(t, ok)
	kernelLineOf := func(fn switchgolden.Func, offset int) int {
		for _, in := range fn.Instrs {
			if in.Offset == offset {
				_, k := lines(t, in.Line)
				return k
			}
		}
		t.Fatalf("%s: no instruction at %d", fn.Name, offset)
		return 0
	}
	// where lists "k:N opname kind" (or "outside ...") of fn's landings in
	// scenario sc for the instructions at kernel.py line k.
	where := func(fn switchgolden.Func, k int, sc string) []string {
		var out []string
		for _, in := range fn.Instrs {
			if _, kl := lines(t, in.Line); kl != k {
				continue
			}
			for _, s := range append(append([]string(nil), in.Cold...), in.Warm...) {
				name, rest, _ := strings.Cut(s, ":")
				if name != sc {
					continue
				}
				off, kind, _ := strings.Cut(rest, "/")
				entry := "outside " + kind
				if off != "outside" {
					n, err := strconv.Atoi(off)
					require.NoError(t, err, s)
					entry = "k:" + strconv.Itoa(kernelLineOf(fn, n)) + " " + kind
				}
				if !slices.Contains(out, entry) {
					out = append(out, entry)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, []string{"k:89 callee"}, where(call, 84, "launch"), "device check read None: lands in normalize_kernel_dimensions")
	require.Equal(t, []string{"k:85 callee"}, where(call, 84, "inline"), "device check read a fake: lands in _get_kernel_context")
	require.Equal(t, []string{"outside in___enter__:CALL"}, where(push, 31, "launch"), "assert passed: lands after the store")
	require.Equal(t, []string{"outside in___enter__:CALL"}, where(push, 32, "launch"), "the store: lands after it")
	require.Equal(t, []string{"k:31 direct"}, where(push, 31, "push_busy")[:1], "assert failed: lands at the AssertionError's CALL")
	inline := where(call, 85, "inline")
	require.Equal(t, where(call, 85, "host_device_call"), inline, "the inline run lands as a host's device call does")
	require.NotEmpty(t, inline)
}

// TestInterruptWithSeveralHosts explores every state of two hosts with
// interrupts: the interrupt lands only in host 0 (the main thread), never
// changing host 1's slots nor stopping host 1 at a landing, and it lands
// at each of host 0's several-host landings: after the device check read
// None or a fake, after _push_kernel_context's store, and while host 0
// runs the kernel inline.
func TestInterruptWithSeveralHosts(t *testing.T) {
	sc := parse(t, `threads 1
hosts 2
faults interrupt
module kernels cuda
kernel: use cuda.threadIdx`)
	p := program(t, sc, swap.Merged, model.GIL)
	sig := p.Signal()
	require.Equal(t, p.NumThreads()-1, sig)

	want := map[string]string{
		"read None":   "after its device check read None",
		"read a fake": "after its device check read a fake",
		"store":       "lands in _push_kernel_context's __enter__",
		"inline":      "the host's call raised KeyboardInterrupt",
	}
	seen := map[string]int{}
	visited := map[string]bool{}
	stack := []*model.World{model.New(p)}
	stack[0].Trace = true
	var buf []sched.ThreadID
	states := 0
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := string(w.AppendKey(nil))
		if visited[k] {
			continue
		}
		visited[k] = true
		states++
		for h := 1; h < p.NumHosts(); h++ {
			require.False(t, w.PausedForTest(h), "host %d stands at a landing", h)
		}
		buf, _ = w.AppendRunnable(buf[:0])
		for _, th := range buf {
			c := w.Clone()
			before := c.ThreadSlotsForTest(1)
			ev := c.Step(int(th))
			if int(th) == sig && ev.Raised == model.KeyboardInterrupt {
				require.Equal(t, before, c.ThreadSlotsForTest(1), "the interrupt changed host1")
				text := strings.Join(ev.Effects, "; ")
				for name, s := range want {
					if strings.Contains(text, s) {
						seen[name]++
					}
				}
			}
			stack = append(stack, c)
		}
	}
	t.Logf("%d states; landings seen: %v", states, seen)
	for name := range want {
		require.Positive(t, seen[name], "no interrupt lands at %s", name)
	}
}
