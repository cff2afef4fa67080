package model

// ReadyForTest reports whether thread t of w is alive and its next step
// can run in itself (a lock free, the barrier released), whether or not
// another thread keeps the GIL. It reads a copy: w's speed machinery is
// left as it is.
func (w *World) ReadyForTest(t int) bool {
	c := w.Clone()
	return c.s[c.thread(t)+tStatus] == alive && c.ready(t)
}

// HolderForTest is the thread that keeps the GIL in w, or -1.
func (w *World) HolderForTest() int { return w.Clone().holder() }
