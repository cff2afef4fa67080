package testenv_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
)

func TestCover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"one dimension", []int{5}},
		{"scenarios x variants x modes", []int{13, 6, 4}},
		{"the largest in the middle", []int{2, 9, 6}},
		{"equal sizes", []int{3, 3}},
		{"a dimension of one", []int{4, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			product, longest := 1, 0
			for _, s := range tc.sizes {
				product *= s
				longest = max(longest, s)
			}
			full := testenv.CoverFor(true, tc.sizes...)
			require.Len(t, full, product)
			seen := map[string]bool{}
			for _, c := range full {
				require.Len(t, c, len(tc.sizes))
				seen[fmt.Sprint(c)] = true
			}
			require.Len(t, seen, product, "the long run holds every combination once")

			sample := testenv.CoverFor(false, tc.sizes...)
			require.Len(t, sample, longest)
			for d, s := range tc.sizes {
				hit := make([]bool, s)
				for _, c := range sample {
					require.Less(t, c[d], s)
					hit[c[d]] = true
				}
				require.NotContains(t, hit, false, "dimension %d: an index the sample never takes", d)
			}
			for _, c := range sample {
				require.True(t, seen[fmt.Sprint(c)], "a sampled combination %v outside the product", c)
			}
			require.Equal(t, sample, testenv.CoverFor(false, tc.sizes...), "the same sample every time")
		})
	}
	require.Empty(t, testenv.CoverFor(true, 3, 0))
	require.Empty(t, testenv.CoverFor(false, 3, 0))
	require.Empty(t, testenv.CoverFor(false))
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
