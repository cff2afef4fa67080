package model

// MarkKind is a boundary of an operation on the swap machinery, as seen
// from outside it.
type MarkKind uint8

const (
	// EnterCall: a with swapped_cuda_module(...) begins (__enter__ called).
	EnterCall MarkKind = 1 + iota
	// EnterReturn: the generator reached its yield; the body runs.
	EnterReturn
	// ExitCall: the body ended (normally or by an exception); __exit__ runs.
	ExitCall
	// ExitReturn: __exit__ returned (or the exception left the with).
	ExitReturn
	// Observe: kernel or device code read a module's cuda global.
	Observe
)

// Mark is one boundary, in the order the steps happened.
type Mark struct {
	Kind   MarkKind
	Thread int
	Module int
	// Swapped: for Observe, whether the global held what a swap installs
	// rather than the real module: a fake, or None (the fake a device
	// call passes outside a launch, as a call from the host does).
	Swapped bool
	// Aborted: for Observe, the reading thread's launch had already
	// failed (its abort flag was set): a lingering thread's read, which
	// hurts nobody by itself.
	Aborted bool
}

// markLandings is where an interrupt lands at each boundary (interrupt.go).
var markLandings = [...]slot{EnterCall: landEnter, EnterReturn: landYield, ExitCall: landExit, ExitReturn: landAfterWith}

// History collects marks when a World's History is set; clones share it
// only if the caller copies it (see World.History).
type History struct{ Marks []Mark }

func (w *World) mark(k MarkKind, t, f int) {
	w.crossed()
	w.land(t, markLandings[k])
	if w.History == nil {
		return
	}
	w.History.Marks = append(w.History.Marks, Mark{Kind: k, Thread: t, Module: w.p.codes[w.s[f+fCode]].module})
}
