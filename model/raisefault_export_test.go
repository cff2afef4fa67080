package model

// NarrowRaise makes the raise fault's footprint wrong on purpose (see
// debug.narrowRaise) until the returned function restores it.
func NarrowRaise() (restore func()) {
	debug.narrowRaise = true
	return func() { debug.narrowRaise = false }
}
