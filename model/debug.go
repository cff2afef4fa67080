package model

// debug holds the switches that tests set, through the functions of
// testhooks.go only, to check the speed machinery against the plain interpreter
// or to break a reduction on purpose. Nothing else sets them, and their
// zero value is what every search runs.
var debug struct {
	// verifyMemo: every step the memo could recall runs the interpreter
	// instead and panics unless the memo agrees; so does every status the
	// status memo holds.
	verifyMemo bool
	// keepVectors: every world keeps its vector current (no world goes
	// stale, see speed_lazy.go), so that tests can compare searches with and
	// without stale worlds.
	keepVectors bool
	// verifyCanon: the compact and canonical keys look every number they
	// kept up again, and panic if one differs (a change to the vector
	// that did not unset it).
	verifyCanon bool
	// brokenSymmetry breaks the canonical key on purpose: the key of a
	// state no longer determines its future. It exists only so that a
	// test can check that the soundness tests catch a broken reduction
	// (see BreakSymmetryForTest).
	brokenSymmetry brokenSymmetry
	// narrowSignal breaks the interrupt's footprint on purpose: the
	// SIGINT step declares the host's next step's object instead of a
	// dependence on all, so that a test can check that the agreement
	// test of the reductions catches it (NarrowSignal).
	narrowSignal bool
	// narrowRaise breaks the raise fault's footprints on purpose: RAISE's
	// move declares nothing shared and the armed move of a thread its
	// statement's object, instead of a dependence on all
	// (NarrowRaise).
	narrowRaise bool
	// orderByNumber breaks AppendCanonicalOrder on purpose: it sorts a
	// group's threads by their live parts' numbers, as the key does,
	// which depend on the order a search met the parts, instead of by
	// their contents (OrderByNumberForTest).
	orderByNumber bool
	// brokenPin breaks POR's pins on purpose: every module of a protocol
	// that can pin one is pinned, whatever its state, so that a test can
	// check that the agreement tests catch it (TestBrokenPinIsCaught,
	// BreakPinForTest).
	brokenPin bool
	// sectionsAnyWorld breaks Program.Sections on purpose: every world
	// of a protocol with guarded globals is taken as one its argument
	// covers (several hosts, raises, faults, any atomicity), so that a
	// test can check that the agreement tests catch it
	// (BreakSectionsWorldForTest).
	sectionsAnyWorld bool
	// sectionsUnsettled breaks World.Settle on purpose: orig stays in a
	// body's frame, so that two sections run in either order can leave
	// two states, and a test can check that the persistence test
	// catches it (UnsettleSectionsForTest).
	sectionsUnsettled bool
	// firstStepOnly breaks POR's macro steps on purpose: under
	// GILBreaker, MayConflict asks of p's next step alone, not of the
	// steps it takes while it keeps the GIL, so that a test can check
	// that the agreement tests catch it (BreakMacroForTest).
	firstStepOnly bool
	// brokenFaultPOR breaks POR's fault rules on purpose: a raisable
	// thread no longer brings RAISE into a persistent set, nor RAISE
	// the raisable threads, so that a test can check that the agreement
	// tests catch it (BreakFaultPORForTest).
	brokenFaultPOR bool
	// cutsHoldPastRaises breaks POR's futures on purpose: a thread that
	// may raise keeps every cut of its walk, as if no exception could
	// take it past one (see Exceptions in reduce_futures.go), so that a
	// test can check that the agreement tests catch it
	// (KeepCutsPastRaisesForTest).
	cutsHoldPastRaises bool
}
