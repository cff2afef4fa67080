package check

// SetShrinkBudgetForTest sets the budget of each of the shrinker's
// searches until the returned function is called.
func SetShrinkBudgetForTest(steps int64) (restore func()) {
	old := shrinkBudget
	shrinkBudget = steps
	return func() { shrinkBudget = old }
}
