package check

// SetAutoBoundedBudgetForTest sets the budget of auto's bounded search
// until the returned function is called.
func SetAutoBoundedBudgetForTest(steps int64) (restore func()) {
	old := autoBoundedBudget
	autoBoundedBudget = steps
	return func() { autoBoundedBudget = old }
}
