package source

import (
	"fmt"

	"swapcheck/pyvm"
	"swapcheck/sched"
)

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
	var steps []Step
	w, f := play(p, schedule, func(t sched.ThreadID, units []Unit) {
		steps = append(steps, Step{Thread: int(t), Units: append([]Unit(nil), units...)})
	})
	if f != nil {
		return steps, f
	}
	for t := range w.th {
		if w.Status(sched.ThreadID(t)) != sched.Done {
			return steps, nil
		}
	}
	return steps, w.Final()
}

// play runs schedule from the world before the launch up to the first
// step whose thread cannot run or that fails, and returns the world it
// ends in and that failure; each, when set, receives every step's units.
func play(p *Program, schedule []sched.ThreadID, each func(t sched.ThreadID, units []Unit)) (*World, *sched.Failure) {
	w := New(p)
	var units []Unit
	if each != nil {
		w.rec = &units
	}
	for _, t := range schedule {
		if w.Status(t) != sched.Runnable {
			break
		}
		units = units[:0]
		f := w.Step(t)
		if each != nil {
			each(t, units)
		}
		if f != nil {
			return w, f
		}
	}
	return w, nil
}

// Waiting says, after schedule ran from the world before the launch, what
// each blocked thread waits for, one line each ("host: kernelapi.py:514
// with lock:  [BEFORE_WITH]: the lock is held, and no thread that can
// move will release it"): what a deadlock's trace ends on.
func Waiting(p *Program, schedule []sched.ThreadID) []string {
	w, _ := play(p, schedule, nil)
	var out []string
	for t := range w.th {
		if w.Status(sched.ThreadID(t)) != sched.Blocked {
			continue
		}
		out = append(out, p.ThreadName(t)+": "+w.waits(t))
	}
	return out
}

// waits says what blocked thread t waits for.
func (w *World) waits(t int) string {
	th := &w.th[t]
	switch {
	case t == w.p.signal || t == w.p.raiser:
		return "a fault that cannot fall now"
	case !w.p.isHost(t) && th.frames == nil:
		return "its start (t.start()), which the host has not reached"
	case th.atBarrier:
		return "the barrier of cuda.syncthreads(), for the host's poll"
	case w.p.isHost(t) && th.frames == nil && w.s.Status(t) != pyvm.Running && w.p.host[t][th.host].kind == hJoin:
		return "the block's threads (BlockManager.run's polling loop)"
	}
	trial := w.clone()
	trial.rec = nil
	if _, blocked := trial.run(t); blocked {
		if info := &trial.info; info.Blocked && info.Code != nil {
			ins := &info.Code.Instrs[info.Instr]
			line := ins.Line
			if line <= 0 {
				line = info.Code.FirstLine
			}
			return fmt.Sprintf("%s:%d  %s  [%s]: the lock is held, and no thread that can move will release it", w.p.file, line, w.p.line(line), ins.OpName)
		}
	}
	return "a step it cannot take"
}

// NextUnits runs schedule from the world before the launch, its steps
// running on past any failure, then thread t's next step, and returns
// that step's units: where t goes on once its turns in schedule are over
// (a replay parks it there). For a thread blocked then (a deadlock's),
// the units up to the instruction it blocks on, that one included. Nil
// when t has nothing left to run.
func NextUnits(p *Program, schedule []sched.ThreadID, t sched.ThreadID) []Unit {
	w := New(p)
	for _, u := range schedule {
		if w.Status(u) != sched.Runnable {
			return nil
		}
		w.Step(u)
	}
	var units []Unit
	w.rec = &units
	switch w.Status(t) {
	case sched.Runnable:
		w.Step(t)
	case sched.Blocked:
		th := &w.th[t]
		if int(t) == w.p.signal || int(t) == w.p.raiser || th.atBarrier || !w.p.isHost(int(t)) && th.frames == nil ||
			w.p.isHost(int(t)) && th.frames == nil && w.s.Status(int(t)) != pyvm.Running {
			// not blocked on a lock: a pseudo-thread, a barrier, a thread
			// not started, a host polling its block
			return nil
		}
		if _, blocked := w.run(int(t)); blocked && w.info.Blocked && w.info.Code != nil {
			units = append(units, w.pyUnit(int(t), &w.info))
		}
	}
	return units
}
