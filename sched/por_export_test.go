package sched

// Deliberately broken POR searches, exported to the black-box tests, which
// must catch each one missing an outcome.
var (
	// PORNextStepsOnly judges conflicts by the threads' next steps alone.
	PORNextStepsOnly = POR{fault: porNextStepsOnly}
	// PORNoProviso drops the stack proviso.
	PORNoProviso = POR{fault: porNoProviso}
)
