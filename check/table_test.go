package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/sched"
	"swapcheck/variants"
)

// TestVerdictTableMatchesExpected: a variant registered as correct is
// verified on every row of the verdict table without faults, under every
// atomicity mode, and one registered as Hardened on the rows with faults or
// several hosts too; one registered as buggy has a violation on some row. A new
// variant registered with the wrong expectation, or a change that breaks
// a correct variant or fixes a buggy one, fails here.
func TestVerdictTableMatchesExpected(t *testing.T) {
	rows, err := check.VerdictTable()
	require.NoError(t, err)
	violations := map[string]int{}
	seen := map[string]bool{}
	for _, r := range rows {
		name := r.Variant.Protocol.Name
		seen[name] = true
		for i, res := range r.Results {
			switch res.Verdict {
			case sched.Violation:
				require.False(t, r.NeedNotSurvive && r.Variant.Hardened,
					"%s is registered as hardened, but %s under %s is a violation (%s)",
					name, r.Flags, check.TableAtomicities[i], res.Failure.Kind)
				if r.NeedNotSurvive {
					continue // what no variant need survive (check.TableShapes)
				}
				violations[name]++
				require.Equal(t, variants.Buggy, r.Variant.Expected,
					"%s is registered as %s, but %s under %s is a violation (%s)",
					name, r.Variant.Expected, r.Flags, check.TableAtomicities[i], res.Failure.Kind)
			case sched.Verified:
			default:
				t.Fatalf("%s %s under %s: %s, the table's searches must end", name, r.Flags, check.TableAtomicities[i], res.Verdict)
			}
		}
	}
	for _, v := range variants.All() {
		name := v.Protocol.Name
		require.True(t, seen[name], "%s has no row in the verdict table", name)
		if v.Expected == variants.Buggy {
			require.Positive(t, violations[name], "%s is registered as buggy, but every row of the verdict table is verified", name)
		}
	}
}

// registered are the names of the variants registered as want, in
// registry order: the tests that run every correct or every buggy variant
// take them from here, so none is left out.
func registered(want variants.Expected) []string {
	var out []string
	for _, v := range variants.All() {
		if v.Expected == want {
			out = append(out, v.Protocol.Name)
		}
	}
	return out
}
