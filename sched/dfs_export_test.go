package sched

// PeekEarlyAlwaysForTest makes depth-first searches peek early (see
// peekEarly) whatever the size of their visited set, until the returned
// function is called.
func PeekEarlyAlwaysForTest() (restore func()) {
	debug.peekEarlyAlways = true
	return func() { debug.peekEarlyAlways = false }
}
