package sched

import "fmt"

// DPOR is a stateless exhaustive search that reduces by partial order: it
// runs whole executions, one after another, and from each one's races
// works out which other orders still need exploring, so that it runs at
// least one execution of every equivalence class of executions (two are
// equivalent when one becomes the other by swapping adjacent independent
// steps, Footprint.Dependent deciding), and seldom more. Equivalent
// executions end in the same state and fail alike, so finding nothing is
// Verified.
//
// It is source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas,
// "Optimal dynamic partial order reduction", POPL 2014, Algorithm 1):
// before each step e' it finds every earlier step e that races with it
// (dependent, of another thread, with no step ordered between them) and
// makes sure that, at the state before e, some thread is scheduled that can
// start the reversed order, the steps after e that do not depend on it
// followed by e'. Sleep sets keep it from running a thread whose orders
// were covered by a sibling branch.
//
// Threads that block need more than the paper's races, which are between
// steps that ran. Two acquires of one lock, the second blocked until the
// first thread releases it, are ordered through the release, and the race
// of the release with the acquire it let run cannot be reversed. So:
//
//   - at every state, the next step of each blocked thread is checked for
//     races as if it ran there (blockedRaces): the second acquire races
//     with the first;
//   - a race is reversed only when the reversed order can run (the paper's
//     reversible races), checked by replaying it, except that when the
//     later step's thread has steps of its own in between, it is reversed
//     all the same, which brings that thread earlier to the step it blocks
//     on, where the first rule sees its races.
//
// The search thereby depends on the footprints declaring every way a step
// can enable or block another: a step that changes whether another
// thread's next step can run must be dependent with that step.
//
// DPOR keeps no visited set: Stats.States is 0, Executions counts the
// executions run to their end plus the ones abandoned because every
// runnable thread was asleep (also counted in Stats.SleepBlocked).
type DPOR struct {
	// fault breaks the search on purpose, for tests that must see a
	// broken reduction caught (see dpor_export_test.go). Zero: none.
	fault dporFault
}

// dporFault is a deliberate bug, for tests only.
type dporFault uint8

const (
	faultNone dporFault = iota
	// faultNoRaces drops every backtrack point a race asks for.
	faultNoRaces
	// faultNoBlocked ignores the races of blocked threads' next steps.
	faultNoBlocked
	// faultReversibleOnly reverses only the races that can be reversed
	// as they stand, as the paper does, never walking a thread back.
	faultReversibleOnly
)

// Name implements Strategy.
func (DPOR) Name() string { return "dpor" }

// Exhaustive implements Strategy.
func (DPOR) Exhaustive() bool { return true }

// dporFrame is one state of the current execution: the i-th frame holds
// the state after i steps and, while a deeper frame exists, the step taken
// from it.
type dporFrame struct {
	state  System
	status []Status    // every thread's status here
	fp     []Footprint // every thread's next step, where not Done
	counts []int32     // steps each thread took before this state
	// backtrack: threads to run from here; sleep: threads not to run from
	// here (asleep on arrival, or already run).
	backtrack, sleep []bool
	// The step taken from here: its thread and its vector clock (clock[t]
	// is how many of thread t's steps happen before it, itself included).
	thread ThreadID
	clock  []int32
	// stamp is unique to this frame's push, and replays[q] the replay of
	// reversible(i, n, q) from here, kept to be carried further (i is
	// this frame; see reversible).
	stamp   uint64
	replays []dporReplay
	// preempts: the preemptions of the steps before this state.
	preempts int
}

// dporReplay is the state after the steps among frames i+1..upTo-1 that do
// not happen after frame i's step, valid while frame upTo has stamp.
type dporReplay struct {
	state System
	upTo  int
	stamp uint64
}

// dpor is one run of the search.
type dpor struct {
	n      int
	fault  dporFault
	stack  []dporFrame
	pushes uint64
	states pool
	res    Result
	// scratch
	races    []int
	seen     []bool
	initials []ThreadID
	pending  []int32
}

// Run implements Strategy.
func (d DPOR) Run(init System, lim Limits) Result {
	x := &dpor{n: init.NumThreads(), fault: d.fault}
	x.seen = make([]bool, x.n)
	x.pending = make([]int32, x.n)
	return x.run(init, lim)
}

func (x *dpor) run(init System, lim Limits) Result {
	var (
		stop = stopper{stop: lim.Stop}
		maxD = lim.maxDepth()
		res  = &x.res
	)
	stop.weigh(init)
	root := x.push(init.Clone(), -1)
	t := x.first(root, -1)
	if t < 0 {
		if f := terminal(root.state, x.allDone(root)); f != nil {
			return x.fail(f)
		}
		res.Stats.execution(0)
		res.Verdict, res.Complete = Verified, true
		return *res
	}
	root.backtrack[t] = true
	for len(x.stack) > 0 {
		if stop.stopped() {
			res.Verdict, res.Cut = Incomplete, "stopped"
			return *res
		}
		if lim.MaxExecutions > 0 && res.Stats.Executions >= lim.MaxExecutions {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("max-executions %d reached", lim.MaxExecutions)
			return *res
		}
		d := len(x.stack) - 1
		top := &x.stack[d]
		p := ThreadID(-1)
		for t := range x.n {
			if top.backtrack[t] && !top.sleep[t] {
				p = ThreadID(t)
				break
			}
		}
		if p < 0 {
			x.pop()
			continue
		}
		top.thread = p
		// Races of the step about to run (Algorithm 1, lines 5-9).
		x.clockAndRaces(d, p, top.fp[p], top.clock)
		for _, i := range x.races {
			x.reverse(i, d, p, top.clock)
		}
		next := x.states.copyOf(top.state)
		res.Stats.Steps++
		res.Stats.Depth = max(res.Stats.Depth, d+1)
		if f := next.Step(p); f != nil {
			return x.fail(f)
		}
		child := x.push(next, p)
		top = &x.stack[d] // push may have moved the stack
		for q := range x.n {
			child.sleep[q] = top.sleep[q] && ThreadID(q) != p && !top.fp[q].Dependent(top.fp[p])
		}
		x.blockedRaces(d + 1)
		t = x.first(child, p)
		switch {
		case t >= 0:
		case x.anyRunnable(child):
			res.Stats.execution(child.preempts)
			res.Stats.SleepBlocked++
			x.pop()
			continue
		default:
			if f := terminal(child.state, x.allDone(child)); f != nil {
				return x.fail(f)
			}
			res.Stats.execution(child.preempts)
			x.pop()
			continue
		}
		if d+1 >= maxD {
			res.Verdict, res.Cut = Incomplete, fmt.Sprintf("an execution reached the step budget of %d", maxD)
			return *res
		}
		child.backtrack[t] = true
	}
	res.Verdict, res.Complete = Verified, true
	return *res
}

// push adds a frame for s, reached by a step of thread via (-1: the
// initial state), reusing a popped frame's slices.
func (x *dpor) push(s System, via ThreadID) *dporFrame {
	if len(x.stack) < cap(x.stack) {
		x.stack = x.stack[:len(x.stack)+1]
	} else {
		x.stack = append(x.stack, dporFrame{})
	}
	d := len(x.stack) - 1
	f := &x.stack[d]
	if f.status == nil {
		f.status = make([]Status, x.n)
		f.fp = make([]Footprint, x.n)
		f.counts = make([]int32, x.n)
		f.backtrack = make([]bool, x.n)
		f.sleep = make([]bool, x.n)
		f.clock = make([]int32, x.n)
		f.replays = make([]dporReplay, x.n)
	}
	x.pushes++
	f.state, f.thread, f.stamp, f.preempts = s, -1, x.pushes, 0
	if d > 0 {
		f.preempts = x.stack[d-1].preempts + x.preemption(d-1)
	}
	clear(f.backtrack)
	clear(f.sleep)
	if d == 0 {
		clear(f.counts)
	} else {
		copy(f.counts, x.stack[d-1].counts)
		f.counts[via]++
	}
	for t := range x.n {
		f.status[t] = s.Status(ThreadID(t))
		if f.status[t] != Done {
			f.fp[t] = s.Footprint(ThreadID(t))
		} else {
			f.fp[t] = Footprint{}
		}
	}
	return f
}

// pop drops the top frame and marks its step as run in the frame below
// (Algorithm 1, line 12).
func (x *dpor) pop() {
	d := len(x.stack) - 1
	f := &x.stack[d]
	x.states.put(f.state)
	f.state = nil
	for q := range f.replays {
		if r := &f.replays[q]; r.state != nil {
			x.states.put(r.state)
			r.state = nil
		}
	}
	x.stack = x.stack[:d]
	if d > 0 {
		below := &x.stack[d-1]
		below.sleep[below.thread] = true
	}
}

// first is the thread to run first from f: last, when it can run and is
// awake (fewer preemptions), else the lowest such; -1 when none.
func (x *dpor) first(f *dporFrame, last ThreadID) ThreadID {
	if last >= 0 && f.status[last] == Runnable && !f.sleep[last] {
		return last
	}
	for t := range x.n {
		if f.status[t] == Runnable && !f.sleep[t] {
			return ThreadID(t)
		}
	}
	return -1
}

// preemption is 1 when the step taken from frame d is a preemption (see
// CountPreemptions), else 0.
func (x *dpor) preemption(d int) int {
	if d == 0 {
		return 0
	}
	f, last := &x.stack[d], x.stack[d-1].thread
	if f.thread != last && f.status[last] == Runnable {
		return 1
	}
	return 0
}

func (x *dpor) anyRunnable(f *dporFrame) bool {
	for _, s := range f.status {
		if s == Runnable {
			return true
		}
	}
	return false
}

func (x *dpor) allDone(f *dporFrame) bool {
	for _, s := range f.status {
		if s != Done {
			return false
		}
	}
	return true
}

// fail ends the search with a violation after the steps on the stack.
func (x *dpor) fail(f *Failure) Result {
	res := &x.res
	res.Verdict, res.Complete, res.Failure = Violation, false, f
	res.Schedule = make([]ThreadID, 0, len(x.stack))
	for _, fr := range x.stack {
		if fr.thread >= 0 {
			res.Schedule = append(res.Schedule, fr.thread)
		}
	}
	top := len(x.stack) - 1
	n := x.stack[top].preempts
	if x.stack[top].thread >= 0 {
		n += x.preemption(top) // the failing step
	}
	res.Stats.execution(n)
	return *res
}

// blockedRaces checks the next step of every thread blocked at frame c as
// if it ran after the c steps before it. A blocked thread's next step and
// its races only change when it becomes blocked or when a step dependent
// with it runs, so those are the frames where it is checked. A step
// independent of it asks for nothing new: it leaves the races, whether
// each can be reversed and whether q has steps in between as they were,
// and can only add to a reversal's initials.
func (x *dpor) blockedRaces(c int) {
	if x.fault == faultNoBlocked {
		return
	}
	child, parent := &x.stack[c], &x.stack[c-1]
	ran := parent.fp[parent.thread]
	for q := range x.n {
		if child.status[q] != Blocked {
			continue
		}
		fp := child.fp[q]
		if parent.status[q] == Blocked && parent.fp[q] == fp && !ran.Dependent(fp) {
			continue
		}
		x.clockAndRaces(c, ThreadID(q), fp, x.pending)
		for _, i := range x.races {
			x.reverse(i, c, ThreadID(q), x.pending)
		}
	}
}

// clockAndRaces computes into clock the vector clock of a step of thread q
// with footprint fp run after the first n steps on the stack, and lists in
// x.races the steps it races with: those of other threads, dependent with
// it, that happen before no other step it depends on (scanning down, a
// step is covered when it happens before one already seen).
func (x *dpor) clockAndRaces(n int, q ThreadID, fp Footprint, clock []int32) {
	clear(clock)
	x.races = x.races[:0]
	prev := false
	for j := n - 1; j >= 0; j-- {
		f := &x.stack[j]
		pj := f.thread
		switch {
		case pj == q:
			if prev {
				continue
			}
			prev = true
		case !f.fp[pj].Dependent(fp):
			continue
		case clock[pj] < f.clock[pj]:
			x.races = append(x.races, j)
		}
		join(clock, f.clock)
		if covers(clock, f.counts) {
			break // every earlier step happens before: no race, no news
		}
	}
	clock[q] = x.stack[n].counts[q] + 1
}

// covers reports whether clock counts at least the steps in counts.
func covers(clock, counts []int32) bool {
	for t, k := range counts {
		if clock[t] < k {
			return false
		}
	}
	return true
}

// reverse handles the race of step e_i (the step taken from frame i) with
// e', a step of thread q with the given clock after the first n steps:
// Algorithm 1, lines 6-9. Let v be the steps after e_i that do not happen
// after it, then e'; its initials are the threads whose first step in v
// happens after no other step of v. Unless one is scheduled at frame i
// already, an initial of v is scheduled there (q if it is one), so that
// some execution runs v's steps ahead of e_i.
//
// The paper only reverses a race when v can run from frame i, with e'
// ahead of e_i. When it cannot, e_i enabled e' (a release and the acquire
// it let run, a barrier and the step it waited for) and the order that
// puts e' first, if there is one, passes e' ahead of some earlier step
// that would block it. That race shows once an execution has q blocked at
// e' (see blockedRaces), so:
//
//   - when q has steps in v, reverse the race all the same: the execution
//     that runs v's initials first takes q to e' earlier, where its races
//     with the steps before e_i are checked;
//   - when q has none, e' was q's next step at frame i already, where
//     those races were checked; the race asks for nothing.
func (x *dpor) reverse(i, n int, q ThreadID, clock []int32) {
	if x.fault == faultNoRaces {
		return
	}
	fi := &x.stack[i]
	pi := fi.thread
	ci := fi.clock[pi]
	after := x.stack[i+1].counts // steps of each thread up to e_i
	initial := func(c []int32, r ThreadID) bool {
		for t, k := range c {
			if ThreadID(t) != r && k > after[t] {
				return false // a step of t after e_i, so in v, comes first
			}
		}
		return true
	}
	clear(x.seen)
	x.initials = x.initials[:0]
	for j := i + 1; j < n; j++ {
		f := &x.stack[j]
		r := f.thread
		if x.seen[r] {
			continue
		}
		x.seen[r] = true
		if f.clock[pi] >= ci {
			continue // r's steps from here on happen after e_i: none in v
		}
		if initial(f.clock, r) {
			x.initials = append(x.initials, r)
		}
	}
	if !x.seen[q] && initial(clock, q) {
		// e' starts v: nothing in v before it touches what it does, so
		// it can run at frame i exactly when q can.
		if fi.status[q] == Runnable && !fi.backtrack[q] && !fi.sleep[q] {
			fi.backtrack[q] = true
		}
		return
	}
	for _, r := range x.initials {
		if fi.backtrack[r] {
			return
		}
	}
	if (!x.seen[q] || x.fault == faultReversibleOnly) && !x.reversible(i, n, q) {
		return
	}
	pick := ThreadID(-1)
	for _, r := range x.initials {
		// An initial's step depends on no step before it in v, nor on
		// e_i: it can run at frame i (the status check only guards
		// against footprints that miss a dependence).
		if fi.status[r] == Runnable && !fi.sleep[r] && (pick < 0 || r == q) {
			pick = r
		}
	}
	if pick >= 0 {
		fi.backtrack[pick] = true
	}
}

// reversible reports whether thread q can run after the steps that follow
// frame i, among the first n, and do not happen after the step taken from
// it: it replays them from frame i's state. A blocked thread's races are
// checked again after every step dependent with it, each time with the
// same frames i and a larger n, so the replay is kept in frame i and
// carried on from where it stopped while the frames it ran are unchanged.
func (x *dpor) reversible(i, n int, q ThreadID) bool {
	fi := &x.stack[i]
	pi := fi.thread
	ci := fi.clock[pi]
	r := &fi.replays[q]
	if r.state == nil || r.upTo > n || x.stack[r.upTo].stamp != r.stamp {
		if r.state != nil {
			x.states.put(r.state)
		}
		r.state, r.upTo = x.states.copyOf(fi.state), i+1
	}
	for j := r.upTo; j < n; j++ {
		f := &x.stack[j]
		if f.clock[pi] >= ci {
			continue
		}
		if r.state.Status(f.thread) != Runnable {
			// Steps independent of e_i should run without it; when the
			// footprints say otherwise, count the race as reversible.
			x.states.put(r.state)
			r.state = nil
			return true
		}
		x.res.Stats.Steps++
		r.state.Step(f.thread)
	}
	r.upTo, r.stamp = n, x.stack[n].stamp
	return r.state.Status(q) == Runnable
}

// join sets dst to the pointwise maximum of dst and src.
func join(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}
