package check

// UnrealSwitchesForTest marks the steps of a trace that switch threads
// where CPython 3.11 cannot (the trace's "~").
func UnrealSwitchesForTest(steps []TraceStep) ([]bool, int) { return unrealSwitches(steps) }
