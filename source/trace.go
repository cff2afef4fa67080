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
	switch w.waitOf(t) {
	case waitFault:
		return "a fault that cannot fall now"
	case waitStart:
		return "its start (t.start()), which the host has not reached"
	case waitBarrier:
		return "the barrier of cuda.syncthreads(), for the host's poll"
	case waitBlock:
		return "the block's threads (BlockManager.run's polling loop)"
	}
	if trial := w.lockTrial(t, nil); trial != nil {
		info := &trial.info
		ins := &info.Code.Instrs[info.Instr]
		line := ins.Line
		if line <= 0 {
			line = info.Code.FirstLine
		}
		return fmt.Sprintf("%s:%d  %s  [%s]: the lock is held, and no thread that can move will release it", w.p.file, line, w.p.line(line), ins.OpName)
	}
	return "a step it cannot take"
}

// waitKind is what a blocked thread waits for.
type waitKind uint8

const (
	waitStep    waitKind = iota // its step's own instruction (a lock): lockTrial says which
	waitFault                   // a pseudo-thread whose fault cannot fall now
	waitStart                   // a GPU thread the host has not started
	waitBarrier                 // a GPU thread at cuda.syncthreads()'s barrier
	waitBlock                   // a host polling its block's threads
)

func (w *World) waitOf(t int) waitKind {
	th := &w.th[t]
	switch {
	case t == w.p.signal || t == w.p.raiser:
		return waitFault
	case !w.p.isHost(t) && th.frames == nil:
		return waitStart
	case th.atBarrier:
		return waitBarrier
	case w.p.isHost(t) && th.frames == nil && w.s.Status(t) != pyvm.Running && w.p.host[t][th.host].kind == hJoin:
		return waitBlock
	}
	return waitStep
}

// lockTrial runs blocked thread t's step on a copy of the world, its
// units recorded in rec (when set), up to the instruction it blocks on,
// and returns the copy, whose info names that instruction; nil when t
// waits for something else than a lock (waitOf).
func (w *World) lockTrial(t int, rec *[]Unit) *World {
	if w.waitOf(t) != waitStep {
		return nil
	}
	trial := w.clone()
	trial.rec = rec
	if _, blocked := trial.run(t); blocked && trial.info.Blocked && trial.info.Code != nil {
		return trial
	}
	return nil
}

// NextUnits runs schedule from the world before the launch, its steps
// running on past any failure, and returns, per thread, the units of its
// next step from there: where it goes on once its turns in schedule are
// over (a replay parks it there). For a thread blocked on a lock then (a
// deadlock's), the units up to the instruction it blocks on, that one
// included; nil for a thread that has nothing left to run or waits for
// something else.
func NextUnits(p *Program, schedule []sched.ThreadID) [][]Unit {
	w := New(p)
	out := make([][]Unit, len(w.th))
	for _, u := range schedule {
		if w.Status(u) != sched.Runnable {
			return out // not a schedule of p: nowhere to park
		}
		w.Step(u)
	}
	for t := range w.th {
		var units []Unit
		switch w.Status(sched.ThreadID(t)) {
		case sched.Runnable:
			trial := w.clone()
			trial.rec = &units
			trial.Step(sched.ThreadID(t))
		case sched.Blocked:
			if trial := w.lockTrial(t, &units); trial != nil {
				units = append(units, trial.pyUnit(t, &trial.info))
			}
		}
		out[t] = units
	}
	return out
}
