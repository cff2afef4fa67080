package bugreport

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck"
	"swapcheck/check"
)

// TestUpstreamLines: a cell's "SRC:N (kernelapi.py:M)" comes from the
// rendition's pin (swapcheck.Upstream, which model's
// TestSourcesAreUpstream ties to numba-cuda's code by its SHA-256); with
// SWAPCHECK_UPSTREAM naming a directory of numba-cuda's files
// (kernelapi-COMMIT.py, as /work/upstream holds them on the project's
// machines), every line M is also checked to be the rendition's line N.
// swapcheck's own code gets no numba-cuda line.
func TestUpstreamLines(t *testing.T) {
	dir := os.Getenv("SWAPCHECK_UPSTREAM")
	for _, p := range check.Protocols() {
		t.Run(p.Name, func(t *testing.T) {
			u := newUpstream(p.Source)
			if _, _, ok := swapcheck.Upstream(p.Source); !ok {
				require.Empty(t, u.commit)
				require.Equal(t, p.Source+":12 x", u.annotate(p.Source+":12 x", false))
				require.Contains(t, u.legend(), "no line in numba-cuda")
				return
			}
			require.NotEmpty(t, u.commit)
			require.Equal(t, p.Source+":21 (kernelapi.py:"+strconv.Itoa(u.line(21))+")  with", u.annotate(p.Source+":21  with", false))
			require.Equal(t, "at "+p.Source+":45 (numba-cuda "+u.commit+" kernelapi.py:"+strconv.Itoa(u.line(45))+"): del", u.annotate("at "+p.Source+":45: del", true))
			if dir == "" {
				t.Skip("SWAPCHECK_UPSTREAM is not set: the lines are checked by the pin's SHA-256 alone (model's TestSourcesAreUpstream)")
			}
			raw, err := os.ReadFile(filepath.Join(dir, "kernelapi-"+u.commit+".py"))
			require.NoError(t, err)
			theirs := strings.Split(string(raw), "\n")
			src, err := swapcheck.PythonSource(p.Source)
			require.NoError(t, err)
			ours := strings.Split(src, "\n")
			for n := u.first; n <= u.last; n++ {
				require.Equal(t, ours[n-1], theirs[u.line(n)-1], "%s:%d is not numba-cuda %s's kernelapi.py:%d", p.Source, n, u.commit, u.line(n))
			}
		})
	}
}
