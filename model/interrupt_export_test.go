package model

// NarrowSignal makes the interrupt's footprint wrong on purpose (see
// debug.narrowSignal) until the returned function restores it.
func NarrowSignal() (restore func()) {
	debug.narrowSignal = true
	return func() { debug.narrowSignal = false }
}

// PausedForTest reports whether thread t stands at an interrupt's landing.
func (w *World) PausedForTest(t int) bool { w.sync(); return w.paused(t) }

// ThreadSlotsForTest is a copy of thread t's slot block.
func (w *World) ThreadSlotsForTest(t int) []int16 {
	w.sync()
	b := w.thread(t)
	return append([]int16(nil), w.s[b:b+w.p.lay.threadSize]...)
}
