package source

import "swapcheck/sched"

// Step is one step of a schedule as a trace shows it: the thread, and the
// units it ran (the file's instructions, the simulator's statements).
type Step struct {
	Thread int
	Units  []Unit
}

// Run runs schedule (a thread per step) from the world before the launch
// and returns its steps, and the failure its last step or its end state
// gave (nil if none). It stops at the first step whose thread cannot run.
func Run(p *Program, schedule []sched.ThreadID) ([]Step, *sched.Failure) {
	w := New(p)
	var units []Unit
	w.rec = &units
	var steps []Step
	for _, t := range schedule {
		if w.Status(t) != sched.Runnable {
			break
		}
		units = units[:0]
		f := w.Step(t)
		steps = append(steps, Step{Thread: int(t), Units: append([]Unit(nil), units...)})
		if f != nil {
			return steps, f
		}
	}
	for t := range w.th {
		if w.Status(sched.ThreadID(t)) != sched.Done {
			return steps, nil
		}
	}
	return steps, w.Final()
}
