package swapcheck_test

import (
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
