package bugreport

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"swapcheck"
)

// upstreamFile is numba-cuda's file that holds swapped_cuda_module, as a
// maintainer finds it in the repository.
const upstreamFile = "numba_cuda/numba/cuda/simulator/kernelapi.py"

// upstream turns the lines of a variant's rendition (testdata/python/SRC)
// into numba-cuda's kernelapi.py lines at the commit the rendition's pin
// names (swapcheck.Upstream, the one place the offset comes from:
// model's TestSourcesAreUpstream ties the pin to numba-cuda's code).
type upstream struct {
	src    string // the rendition's file name, "refcount_del.py"
	commit string // "" for swapcheck's own code (proposed)
	offset int
	// first and last are the rendition's lines of the function, from
	// its "@contextmanager" line to its end
	first, last int
	cite        *regexp.Regexp // "SRC:N" in a cell, a title or a message
}

func newUpstream(src string) upstream {
	u := upstream{src: src, cite: regexp.MustCompile(regexp.QuoteMeta(src) + `:([0-9]+)\b`)}
	if commit, offset, ok := swapcheck.Upstream(src); ok {
		u.commit, u.offset = commit, offset
	}
	text, _ := swapcheck.PythonSource(src)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if l == "@contextmanager" {
			u.first, u.last = i+1, len(lines)
			break
		}
	}
	return u
}

// line is numba-cuda's kernelapi.py line of the rendition's line n.
func (u upstream) line(n int) int { return n + u.offset }

// annotate puts numba-cuda's line after each of the rendition's lines
// that s cites: "refcount_del.py:45" becomes "refcount_del.py:45
// (kernelapi.py:531)"; withCommit names the commit too, for a line read
// alone (a title). s is unchanged for swapcheck's own code.
func (u upstream) annotate(s string, withCommit bool) string {
	if u.commit == "" {
		return s
	}
	return u.cite.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(u.cite.FindStringSubmatch(m)[1])
		if err != nil {
			return m
		}
		if withCommit {
			return fmt.Sprintf("%s (numba-cuda %s kernelapi.py:%d)", m, u.commit, u.line(n))
		}
		return fmt.Sprintf("%s (kernelapi.py:%d)", m, u.line(n))
	})
}

// legend says, for the trace's head, what the cells' lines are.
func (u upstream) legend() string {
	if u.commit == "" {
		return fmt.Sprintf("`%s:N` is line N of `testdata/python/%s`, swapcheck's own code, which has no line in numba-cuda", u.src, u.src)
	}
	return fmt.Sprintf("`%s:N (kernelapi.py:M)` is line N of `testdata/python/%s` and line M of numba-cuda %s's `%s`, which the file holds line for line", u.src, u.src, u.commit, upstreamFile)
}
