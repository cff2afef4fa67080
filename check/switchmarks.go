package check

import (
	"fmt"
	"strings"

	"swapcheck/model"
)

// switchMark is the trace's mark of a thread switch that CPython 3.11 with
// the GIL cannot make (see model.GILBreaker): the step before it ended at
// no eval-breaker check, and its thread neither blocked nor ended, so that
// thread would have kept the GIL.
const switchMark = "~"

// unrealSwitches reports, for each step of a trace, whether it is such a
// switch: another thread's step right after a step that kept the GIL
// (model.Event.KeepsGIL, known for traced steps of the GIL modes).
func unrealSwitches(steps []TraceStep) (marks []bool, n int) {
	marks = make([]bool, len(steps))
	for i := 1; i < len(steps); i++ {
		if prev := &steps[i-1]; prev.Event.KeepsGIL() && steps[i].Thread != prev.Thread {
			marks[i] = true
			n++
		}
	}
	return marks, n
}

// writeSwitchLegend says what the marks mean, when there are any.
func writeSwitchLegend(b *strings.Builder, n int) {
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "%s marks a thread switch CPython 3.11 cannot make (%d here): the\n", switchMark, n)
	fmt.Fprintf(b, "step before it reached no eval-breaker check and its thread neither\n")
	fmt.Fprintf(b, "blocked nor ended, so that thread kept the GIL (-atomicity\n")
	fmt.Fprintf(b, "gil-breaker switches only where 3.11 can).\n\n")
}

// unrealSwitches counts the trace's steps marked UnrealSwitch.
func (t *Trace) unrealSwitches() int {
	n := 0
	for _, s := range t.Steps {
		if s.UnrealSwitch {
			n++
		}
	}
	return n
}

// freeThreadedOnly says, for a counterexample of a free-threaded mode,
// why no GIL build can run it: a thread's defaultdict miss split between
// its lookup and its __missing__ (model.Event.SplitHalf) by another
// thread's step. The free-threaded modes differ from gil in that split
// alone (model.Atomicity), so a trace without such a switch runs the
// same under the GIL, one miss a step; "" then, and for the GIL modes.
func freeThreadedOnly(p *model.Program, steps []TraceStep) string {
	for i := range steps {
		if !steps[i].Event.SplitHalf() {
			continue
		}
		if j := i + 1; j < len(steps) && steps[j].Thread != steps[i].Thread {
			return fmt.Sprintf("needs a free-threaded build: %s's defaultdict miss at step %d (%s) is split from its __missing__ by %s's step %d, a switch no GIL build makes (under the GIL the miss is one step)",
				p.ThreadName(steps[i].Thread), i+1, steps[i].Event.Where, p.ThreadName(steps[j].Thread), j+1)
		}
	}
	return ""
}
