package check

import (
	"fmt"
	"strings"
	"unicode"

	"swapcheck/model"
	"swapcheck/sched"
)

// Violation kinds.
const (
	KindUseSawReal      = "use-saw-real"
	KindUseSawNone      = "use-saw-none"
	KindUseSawOtherFake = "use-saw-other-fake"
	KindException       = "exception"
	KindLeftSwapped     = "left-swapped"
	KindRegistryLeft    = "registry-leftover"
	KindDeadlock        = sched.KindDeadlock
	// KindNotLinearizable: an execution's history of swaps and reads has
	// no order that follows the sequential specification (checked on
	// walks: -strategy random and -replay).
	KindNotLinearizable = "not-linearizable"
	// KindLostUpdate: once every thread exited, no order of the atomics
	// gives the arrays' values and what the atomics returned (memory.go).
	KindLostUpdate = "lost-update"
	// KindSharedNotShared: two threads of a launch got different arrays
	// from one cuda.shared.array call site (memory.go).
	KindSharedNotShared = "shared-not-shared"
	// KindStaleRead: after cuda.syncthreads(), a thread loaded a slot of
	// its shared array that another thread of its block stored to before
	// the barrier, into another array: the store is not there
	// (model.EvStaleRead).
	KindStaleRead = "stale-read"
)

// Kinds lists every violation kind.
var Kinds = []string{KindUseSawReal, KindUseSawNone, KindUseSawOtherFake, KindException, KindLeftSwapped, KindRegistryLeft, KindDeadlock, KindNotLinearizable, KindLostUpdate, KindSharedNotShared, KindStaleRead}

// stepFailure applies the per-step invariants to one event, and says the
// class of the failure (see Harm).
func stepFailure(p *model.Program, ev *model.Event) (*sched.Failure, Harm) {
	if !failing(ev) {
		return nil, 0
	}
	return describeFailure(p, ev), eventHarm(ev)
}

// describeFailure is the failure of a failing event.
func describeFailure(p *model.Program, ev *model.Event) *sched.Failure {
	if ev.Kind == model.EvSharedSplit {
		return sharedSplitFailure(p, ev)
	}
	if ev.Kind == model.EvStaleRead {
		return staleReadFailure(p, ev)
	}
	p.Describe(ev)
	who := p.ThreadName(ev.Thread)
	if ev.Kind != model.EvUse || ev.Saw == ev.Want {
		// Machinery is false for a re-raise: an exception from the body
		// that a finally or a with's exit passes on is not the machinery's
		// own.
		return &sched.Failure{Kind: KindException, Thread: sched.ThreadID(ev.Thread),
			Message: fmt.Sprintf("%s: %s raised by the swap machinery at %s: %s", who, ev.Raised, ev.Where, ev.Text)}
	}
	mod := p.Scenario.Modules[ev.Module].Name
	f := &sched.Failure{Thread: sched.ThreadID(ev.Thread)}
	switch {
	case ev.Saw == model.Real:
		f.Kind = KindUseSawReal
		f.Message = fmt.Sprintf("%s: %s.%s is the real module, not %s: AttributeError: module 'numba.cuda' has no attribute '%s'", who, mod, ev.Name, ev.Want, useAttr(ev))
	case ev.Saw == model.None:
		f.Kind = KindUseSawNone
		f.Message = fmt.Sprintf("%s: %s.%s is None, not %s: AttributeError: 'NoneType' object has no attribute '%s'", who, mod, ev.Name, ev.Want, useAttr(ev))
	default:
		f.Kind = KindUseSawOtherFake
		f.Message = fmt.Sprintf("%s: %s.%s is %s, the fake of another launch, not %s", who, mod, ev.Name, ev.Saw, ev.Want)
	}
	return f
}

// failing reports whether ev breaks a per-step invariant: a use of cuda
// that saw another value than its launch's fake, or an exception the swap
// machinery raised itself. It is true for after-failure violations too,
// which a search under ScopeHarmful steps past: so that peeks (which skip
// Step where failing is false) leave no such step uncounted.
func failing(ev *model.Event) bool {
	return ev.Kind == model.EvUse && ev.Saw != ev.Want || ev.Raised != 0 && ev.Machinery || ev.Kind == model.EvSharedSplit || ev.Kind == model.EvStaleRead
}

func useAttr(ev *model.Event) string {
	if _, attr, ok := strings.Cut(ev.Text, "."); ok {
		// cuda.syncthreads() reads syncthreads, and a branch's
		// "if cuda.threadIdx.x == 0:" threadIdx
		if i := strings.IndexFunc(attr, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }); i >= 0 {
			attr = attr[:i]
		}
		return attr
	}
	return ev.Text
}

// finalFailure applies the end-state invariants once every thread exited.
//
// A module left holding proposed's dispatcher (model.Dispatch) counts as
// restored: once every thread exited, no thread is in a launch, and the
// dispatcher gives every thread that can still run the real module's
// attributes, as the real module does. What it does not give is the real
// module's identity (cuda is numba.cuda is False); docs/proposed_fix.md
// argues why the invariant, which is about what code sees after the
// launches, holds, and what that costs. A fake or None left behind still
// fails. A count entry of 0 in a registry whose zero reads as missing
// (model.Protocol.ZeroCountIsMissing) is no leftover either: no later
// step can tell it from none (an interrupt leaves it between line 26's
// defaultdict miss and the increment).
func finalFailure(w *model.World) *sched.Failure {
	p := w.Program()
	var swapped, left []string
	for m, mod := range p.Scenario.Modules {
		for i, name := range mod.Names {
			if v := w.GlobalValue(m, i); v != model.Real && v != model.Dispatch {
				swapped = append(swapped, fmt.Sprintf("%s.%s is %s", mod.Name, name, v))
			}
		}
		r := w.Registry(m)
		countName, savedName := p.Protocol.EntryNames(mod.Name)
		if r.HasCount && (r.Count != 0 || !p.Protocol.ZeroCountIsMissing) {
			left = append(left, fmt.Sprintf("%s = %d", countName, r.Count))
		}
		if r.HasSaved {
			left = append(left, fmt.Sprintf("%s holds %s", savedName, Count(r.SavedNames, "name")))
		}
	}
	if len(swapped) > 0 {
		return &sched.Failure{Kind: KindLeftSwapped, Thread: -1,
			Message: "every thread exited, but " + strings.Join(swapped, ", ")}
	}
	if len(left) > 0 {
		return &sched.Failure{Kind: KindRegistryLeft, Thread: -1,
			Message: "every thread exited, but the registry still holds " + strings.Join(left, ", ")}
	}
	return lostUpdate(w)
}
