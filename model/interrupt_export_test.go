package model

// NarrowSignal makes the interrupt's footprint wrong on purpose (see
// debug.narrowSignal) until the returned function restores it.
func NarrowSignal() (restore func()) {
	debug.narrowSignal = true
	return func() { debug.narrowSignal = false }
}
