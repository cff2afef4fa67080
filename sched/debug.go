package sched

// debug holds the switches that tests set, through export_test.go only, to
// take a path the tuned constants leave rare. Nothing else sets them, and
// their zero value is what every search runs.
var debug struct {
	// peekEarlyAlways: every visited table peeks early (peekEarly), not
	// only those of earlyPeekBytes and more.
	peekEarlyAlways bool
	// noSpin: the waits of a grow sleep at once (await), without spinning
	// for spinFor first.
	noSpin bool
}
