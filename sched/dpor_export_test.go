package sched

// Deliberately broken DPOR searches, exported to the black-box tests, which
// must catch each one missing an outcome.
var (
	// DPORNoRaces drops every backtrack point a race asks for.
	DPORNoRaces = DPOR{fault: faultNoRaces}
	// DPORNoBlocked ignores the races of blocked threads' next steps.
	DPORNoBlocked = DPOR{fault: faultNoBlocked}
	// DPORReversibleOnly reverses only the races that can be reversed as
	// they stand, never walking a blocked thread back.
	DPORReversibleOnly = DPOR{fault: faultReversibleOnly}
)
