package stress

import (
	"cmp"
	"fmt"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/sched"
)

// runner is what the launches of one run share: the locks and wait queues
// (sized by the program, all free between launches) and the recorders.
type runner struct {
	cfg    Config
	prog   *model.Program
	locks  stepLock
	queues *queues
	start  time.Time
	// keys[t] is thread t's buffer of order keys, reused by each launch.
	keys [][]uint64
}

// Run stresses the configured protocol until the budget is spent, Stop
// says so, or an invariant breaks. It returns after every goroutine it
// started has exited.
func Run(cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	prog, err := model.NewProgram(cfg.Scenario, cfg.Protocol, cfg.Atomicity)
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, prog: prog, locks: newStepLock(prog), queues: newQueues(prog),
		keys: make([][]uint64, prog.NumThreads())}
	res := &Result{Config: cfg, Program: prog}
	r.start = time.Now()
	for {
		switch {
		case cfg.Duration > 0 && time.Since(r.start) >= cfg.Duration,
			cfg.MaxCalls > 0 && res.Calls >= cfg.MaxCalls:
			res.Verdict = sched.NoViolationFound
		case cfg.Stop != nil && cfg.Stop():
			res.Verdict, res.Cut = sched.Incomplete, cmp.Or(cfg.StopReason, "stopped by the caller")
		}
		if res.Verdict != 0 {
			break
		}
		l := r.launch(res.Launches + 1)
		res.Launches++
		var calls int64
		for t := range l.threads {
			calls += l.threads[t].calls
			res.Steps += l.threads[t].steps
			r.keys[t] = l.threads[t].keys
		}
		res.LocksLeft = max(res.LocksLeft, l.sys.LocksLeft())
		if l.fail == nil {
			res.Calls += calls
			continue
		}
		if cfg.KeepGoing {
			res.Calls += calls
			res.Violations++
			continue
		}
		res.Verdict, res.Violation = sched.Violation, r.violation(l, res.Calls)
		res.Calls += calls
		break
	}
	if res.Violations > 0 {
		res.Verdict = sched.Violation
	}
	res.Elapsed = time.Since(r.start)
	return res, nil
}

// launch runs one launch to its end and checks the end state.
func (r *runner) launch(number int64) *launch {
	l := &launch{r: r, number: number, sys: check.NewSystem(r.prog),
		threads: make([]threadState, r.prog.NumThreads())}
	for t := range l.threads {
		l.threads[t].keys = r.keys[t][:0]
	}
	l.run()
	if l.stopped() {
		r.queues.reset()
	}
	if l.fail != nil {
		return l
	}
	for t := range l.threads {
		if !l.sys.World().Done(t) {
			panic(fmt.Sprintf("stress: launch %d ended with thread %s not done and no failure", number, r.prog.ThreadName(t)))
		}
	}
	if f := l.sys.Final(); f != nil {
		l.fail = &failure{f: *f, key: ^uint64(0), after: time.Since(r.start)}
	}
	return l
}

// deadlockMessage says how many threads are stuck; it runs when every
// other goroutine of l is parked, so the state is still.
func deadlockMessage(l *launch) string {
	w := l.sys.World()
	stuck := 0
	for t := range l.threads {
		if !w.Done(t) {
			stuck++
		}
	}
	return fmt.Sprintf("no thread can move: %d blocked, none runnable (every goroutine left is parked)", stuck)
}
