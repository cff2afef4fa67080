package check

// debug holds the switches that tests set, through export_test.go only, to
// make a budget small enough to reach or to keep what a step would change.
// Nothing else sets them, and their zero value is what every search runs.
var debug struct {
	// autoBoundedBudget, canonicalBudget and shrinkBudget replace
	// AutoBoundedBudget, CanonicalBudget and ShrinkBudget when not zero.
	autoBoundedBudget, canonicalBudget, shrinkBudget int64
	// noShorten keeps every counterexample as its search found it.
	noShorten bool
}

// debugOr is v, or def where v is zero (not set).
func debugOr(v, def int64) int64 {
	if v != 0 {
		return v
	}
	return def
}
