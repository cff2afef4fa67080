package check

import "time"

// SetAutoBoundedBudgetForTest sets the budget of auto's bounded search
// until the returned function is called.
func SetAutoBoundedBudgetForTest(steps int64) (restore func()) {
	old := debug.autoBoundedBudget
	debug.autoBoundedBudget = steps
	return func() { debug.autoBoundedBudget = old }
}

// CancelFuncForTest is the Limits.Cancel that Explore gives a search
// started at start.
func CancelFuncForTest(start time.Time, cfg Config) func() bool { return cancelFunc(start, cfg) }

// NoShortenForTest keeps every counterexample as its search found it
// until the returned function is called.
func NoShortenForTest() (restore func()) {
	debug.noShorten = true
	return func() { debug.noShorten = false }
}

// SetCanonicalBudgetForTest sets the budget of the search on one worker
// that replaces a counterexample found by several, until the returned
// function is called.
func SetCanonicalBudgetForTest(steps int64) (restore func()) {
	old := debug.canonicalBudget
	debug.canonicalBudget = steps
	return func() { debug.canonicalBudget = old }
}

// ReadTraceHeadForTest reads a trace.json's head as a corpus does.
func ReadTraceHeadForTest(data []byte) (protocol, atomicity string, err error) {
	h, err := readTraceHead(data)
	return h.Protocol, h.Atomicity, err
}

// AtomicsExplainedForTest is the lost-update check's judgement.
var AtomicsExplainedForTest = atomicsExplained

// PorcupineExplainedForTest and GroupedExplainedForTest are the
// lost-update check's two searches.
var (
	PorcupineExplainedForTest = porcupineExplained
	GroupedExplainedForTest   = explainedGrouped
)
