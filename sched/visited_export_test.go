package sched

// NoSpinForTest makes the waits of a grow sleep at once, without spinning
// first (await), until the returned function is called.
func NoSpinForTest() (restore func()) {
	debug.noSpin = true
	return func() { debug.noSpin = false }
}
