package swapcheck_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck"
)

// Upstream turns a line of a variant's file into numba-cuda's: naive.py's
// "@contextmanager" (line 5) is 55a84eb7's kernelapi.py:494, the first
// line its pin names; swapcheck's own fix has no upstream.
func TestUpstream(t *testing.T) {
	commit, offset, ok := swapcheck.Upstream("naive.py")
	require.True(t, ok)
	require.Equal(t, "55a84eb7", commit)
	src, err := swapcheck.PythonSource("naive.py")
	require.NoError(t, err)
	require.Contains(t, src, "\n@contextmanager\n")
	require.Equal(t, 494, cmLine(src)+offset)

	_, _, ok = swapcheck.Upstream("proposed.py")
	require.False(t, ok)
	_, _, ok = swapcheck.Upstream("nosuch.py")
	require.False(t, ok)
}

func cmLine(src string) int {
	n := 1
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			n++
			if len(src) >= i+16 && src[i+1:i+16] == "@contextmanager" {
				return n
			}
		}
	}
	return 0
}

// MergedFixKernel applies merged-fix's kernel.py edits to a file that has
// each edited text once, and names the edit that does not match
// otherwise (a file already patched has none of them).
func TestMergedFixKernel(t *testing.T) {
	b, err := os.ReadFile("pyreplay/standin/numba/cuda/simulator/kernel.py")
	require.NoError(t, err)
	patched, err := swapcheck.MergedFixKernel(string(b))
	require.NoError(t, err)
	require.NotContains(t, patched, "_kernel_context = None")
	require.Contains(t, patched, "thread.kernel_context = mod")
	require.Contains(t, patched, "self.kernel_context = _get_kernel_context()")
	_, err = swapcheck.MergedFixKernel(patched)
	require.ErrorContains(t, err, "matches 0 times, not once")
}
