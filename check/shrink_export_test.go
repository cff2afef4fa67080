package check

// SetShrinkBudgetForTest sets the budget of each of the shrinker's
// searches until the returned function is called.
func SetShrinkBudgetForTest(steps int64) (restore func()) {
	old := debug.shrinkBudget
	debug.shrinkBudget = steps
	return func() { debug.shrinkBudget = old }
}
