package testenv_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
)

// Nested rotations along the outer loop, as the suites use them: by
// default every index of every dimension at least once, and the same
// sample each time; under Long the whole product, each combination once.
func TestRotate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		outer int
		inner []int
	}{
		{"scenarios x variants x modes", 13, []int{6, 4}},
		{"as many scenarios as variants", 6, []int{6, 2}},
		{"one inner dimension", 9, []int{6}},
		{"a dimension of one", 4, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walk := func(long bool) [][]int {
				var out [][]int
				var nest func(i int, prefix []int, dims []int)
				nest = func(i int, prefix []int, dims []int) {
					if len(dims) == 0 {
						out = append(out, prefix)
						return
					}
					for _, k := range testenv.RotateFor(long, i, dims[0]) {
						nest(i, append(slices.Clone(prefix), k), dims[1:])
					}
				}
				for i := range tc.outer {
					nest(i, []int{i}, tc.inner)
				}
				return out
			}
			product := tc.outer
			for _, n := range tc.inner {
				product *= n
			}
			seen := map[string]bool{}
			for _, c := range walk(true) {
				seen[fmt.Sprint(c)] = true
			}
			require.Len(t, walk(true), product)
			require.Len(t, seen, product, "the long run holds every combination once")

			sample := walk(false)
			require.Len(t, sample, tc.outer, "one combination per outer index")
			for d, n := range tc.inner {
				hit := make([]bool, n)
				for _, c := range sample {
					hit[c[d+1]] = true
				}
				require.NotContains(t, hit, false, "dimension %d: an index the sample never takes", d+1)
			}
			require.Equal(t, sample, walk(false), "the same sample every time")
		})
	}
	require.Empty(t, testenv.RotateFor(true, 3, 0))
	require.Empty(t, testenv.RotateFor(false, 3, 0))
}

// Pairwise under Long, inside a rotated middle dimension: every pair of
// outer and middle indices once, and every inner index meets every outer
// index and every middle index; by default the same diagonal as Rotate.
func TestPairwise(t *testing.T) {
	for _, tc := range []struct{ outer, middle, inner int }{
		{8, 6, 2}, {13, 6, 5}, {5, 6, 5}, {7, 6, 1},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			walk := func(long bool) [][3]int {
				var out [][3]int
				for i := range tc.outer {
					for _, j := range testenv.RotateFor(long, i, tc.middle) {
						for _, k := range testenv.PairwiseFor(long, i, j, tc.inner) {
							out = append(out, [3]int{i, j, k})
						}
					}
				}
				return out
			}
			long := walk(true)
			require.Len(t, long, tc.outer*tc.middle, "one inner index per outer and middle pair")
			outerInner, middleInner := map[[2]int]bool{}, map[[2]int]bool{}
			for _, c := range long {
				outerInner[[2]int{c[0], c[2]}] = true
				middleInner[[2]int{c[1], c[2]}] = true
			}
			require.Len(t, outerInner, tc.outer*tc.inner, "every outer index meets every inner index")
			require.Len(t, middleInner, tc.middle*tc.inner, "every middle index meets every inner index")
			short := walk(false)
			require.Len(t, short, tc.outer)
			for _, c := range short {
				require.Equal(t, c[0]%tc.inner, c[2], "the default is Rotate's diagonal")
			}
		})
	}
	require.Empty(t, testenv.PairwiseFor(true, 1, 2, 0))
}

// TestLongReadsTheVariable runs this test binary again with each value of
// SWAPCHECK_LONG, asking the child only for Long's answer.
func TestLongReadsTheVariable(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "" {
		fmt.Printf("long=%v\n", testenv.Long())
		return
	}
	for _, tc := range []struct {
		value, want string
		code        int
	}{
		{"", "long=false", 0},
		{"0", "long=false", 0},
		{"1", "long=true", 0},
		{"true", "long=true", 0},
		{"yes", `SWAPCHECK_LONG="yes": want 1 (run the long suites) or 0`, 2},
	} {
		t.Run("SWAPCHECK_LONG="+tc.value, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLongReadsTheVariable$")
			cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", testenv.Variable+"="+tc.value)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if tc.code == 0 {
				require.NoError(t, err, stderr.String())
				require.Contains(t, stdout.String(), tc.want+"\n")
				return
			}
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			require.Equal(t, tc.code, exit.ExitCode())
			require.Equal(t, tc.want+"\n", stderr.String(), "one line")
		})
	}
}
