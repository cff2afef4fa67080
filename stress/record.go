package stress

import (
	"cmp"
	"fmt"
	"slices"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// violation turns launch l's failure into a report: the launch's steps in
// the order they took effect, replayed in the simulator.
func (r *runner) violation(l *launch, callsBefore int64) *Violation {
	v := &Violation{Failure: l.fail.f, Launch: l.number, After: l.fail.after}
	v.Schedule = schedule(l)
	rep, err := sched.Replay(check.NewSystem(r.prog), v.Schedule, sched.Limits{})
	switch {
	case err != nil:
		v.Note = fmt.Sprintf("the recorded order does not replay in the simulator: %v", err)
	case rep.Verdict != sched.Violation:
		v.Note = fmt.Sprintf("the simulator, replaying the recorded order, found %s", rep.Verdict)
	case rep.Failure.Kind != v.Failure.Kind || rep.Failure.Thread != v.Failure.Thread:
		v.Note = fmt.Sprintf("the simulator, replaying the recorded order, met %s (%s) instead", rep.Failure.Kind, rep.Failure.Message)
	default:
		v.Reproduced = true
	}
	calls, recent := replayRecent(r.prog, v.Schedule, cmp.Or(r.cfg.Before, DefaultBefore))
	v.Calls = callsBefore + calls
	v.Recent, v.FirstRecent = recent, len(v.Schedule)-len(recent)+1
	return v
}

// schedule merges the threads' step records by order key, up to the
// failing step, which comes last.
func schedule(l *launch) []sched.ThreadID {
	type step struct {
		key uint64
		t   sched.ThreadID
	}
	var steps []step
	fail := l.fail
	for t := range l.threads {
		for _, k := range l.threads[t].keys {
			if k <= fail.key {
				steps = append(steps, step{k, sched.ThreadID(t)})
			}
		}
	}
	failing := fail.f.Thread
	slices.SortFunc(steps, func(a, b step) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		// a tie (free-threaded: independent steps read the same clock
		// tick) puts the failing thread's step last
		switch {
		case a.t == failing && b.t != failing:
			return 1
		case b.t == failing && a.t != failing:
			return -1
		}
		return cmp.Compare(a.t, b.t)
	})
	out := make([]sched.ThreadID, len(steps))
	for i, s := range steps {
		out[i] = s.t
	}
	return out
}

// replayRecent replays a schedule with effects, counting the device calls
// it enters, and keeps its last n steps.
func replayRecent(p *model.Program, schedule []sched.ThreadID, n int) (int64, []check.TraceStep) {
	w := model.New(p)
	var calls int64
	from := max(0, len(schedule)-n)
	var recent []check.TraceStep
	for i, t := range schedule {
		if w.Status(int(t)) != sched.Runnable {
			break // Reproduced says why
		}
		if w.EntersCall(int(t)) {
			calls++
		}
		w.Trace = i >= from
		ev := w.Step(int(t))
		if i >= from {
			recent = append(recent, check.TraceStep{Thread: int(t), Event: *ev})
		}
	}
	return calls, recent
}
