package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The invariants of the simulator's other shared state (model/memory.go).
//
// lost-update, once every thread has ended: for each element the atomics
// touched, some order of those atomics, each thread's in the order it
// made them, run one at a time by their sequential meaning
// (scenario.AtomicOp.Apply: what the method would do alone) from zero,
// gives every value they returned and the element's final value. It is
// checked with porcupine: the atomics are operations all concurrent with
// each other, whose model keeps each thread's progress besides the value,
// so that porcupine's search is over orders that keep each thread's own;
// a read of the final value follows them all. This is sequential
// consistency per element: a search's end state keeps what each atomic
// returned, not when it was called and returned, so the order of atomics
// of different threads in real time is not held against an execution
// (a linearizability check proper would need those times in the state).
// Porcupine's search keys its cache by the set of operations placed, so
// an element with many atomics of few kinds (32 threads adding and
// subtracting 1) costs it a state per subset: 21 GB at 32 threads, in
// one end-state check. Above porcupineOps atomics on an element the
// grouped search (explainedGrouped) decides instead: threads whose calls
// on the element are the same, returned values included, are
// interchangeable, so its states count how many of each group are at
// each place. TestGroupedAgreesWithPorcupine holds the two to the same
// verdict on histories both can check.
//
// shared-not-shared, at the step: a thread's cuda.shared.array returned
// another array than the first a thread of its launch got from that call
// site (model.EvSharedSplit).

// memIn is an atomic's porcupine input (or, final, the read of the
// element's final value after them all).
type memIn struct {
	final  bool
	cell   int
	thread int // dense: the thread's index among those with atomics on the cell
	k      int // the atomic's place among the thread's atomics on the cell
	call   model.AtomicCall
}

// memState is a porcupine state: the element's value and each thread's
// atomics done, one byte each.
type memState struct {
	v    int
	done string
}

func memSpec(threads int) porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			var cells []int
			by := map[int][]porcupine.Operation{}
			for _, op := range history {
				c := op.Input.(memIn).cell
				if _, ok := by[c]; !ok {
					cells = append(cells, c)
				}
				by[c] = append(by[c], op)
			}
			slices.Sort(cells) // never map order
			var parts [][]porcupine.Operation
			for _, c := range cells {
				parts = append(parts, by[c])
			}
			return parts
		},
		Init: func() any { return memState{done: strings.Repeat("\x00", threads)} },
		Step: func(state, input, output any) (bool, any) {
			s, in := state.(memState), input.(memIn)
			if in.final {
				return output.(int) == s.v, s
			}
			if int(s.done[in.thread]) != in.k || !in.call.Store && output.(int) != s.v {
				return false, s
			}
			s.v = in.call.Apply(s.v)
			b := []byte(s.done)
			b[in.thread]++
			s.done = string(b)
			return true, s
		},
		DescribeOperation: func(input, output any) string {
			in := input.(memIn)
			if in.final {
				return fmt.Sprintf("final value %d", output)
			}
			if in.call.Store {
				return fmt.Sprintf("store %d", in.call.Value)
			}
			return fmt.Sprintf("%s(%d, %d) -> %d", in.call.Op, in.call.Value, in.call.Cmp, output)
		},
	}
}

// lostUpdate is the lost-update failure of w's end state, or nil.
func lostUpdate(w *model.World) *sched.Failure {
	p := w.Program()
	sc := p.Scenario
	if len(sc.Arrays) == 0 {
		return nil
	}
	type made struct {
		thread int
		calls  []model.AtomicCall
	}
	var all []made
	for t := range p.NumThreads() {
		if calls := w.AtomicCalls(t); len(calls) > 0 {
			all = append(all, made{t, calls})
		}
	}
	if len(all) == 0 {
		return nil
	}
	threads := make([][]model.AtomicCall, len(all))
	for i, m := range all {
		threads[i] = m.calls
	}
	if atomicsExplained(threads, w.Element) {
		return nil
	}
	cells := touchedCells(threads)
	var calls []string
	for _, m := range all {
		for _, c := range m.calls {
			if c.Store {
				calls = append(calls, fmt.Sprintf("%s %s[%d] = %d", p.ThreadName(m.thread), sc.Arrays[c.Array].Name, c.Index, c.Value))
				continue
			}
			calls = append(calls, fmt.Sprintf("%s %s returned %d", p.ThreadName(m.thread), atomicCallText(sc, c), c.Old))
		}
	}
	var finals, orders []string
	possible := true // every final value is one some order gives
	for _, c := range cells {
		a, i := c/scenario.MaxArraySize, c%scenario.MaxArraySize
		el := fmt.Sprintf("%s[%d]", sc.Arrays[a].Name, i)
		finals = append(finals, fmt.Sprintf("%s is %d", el, w.Element(a, i)))
		ends := orderFinals(threads, c)
		possible = possible && slices.Contains(ends, w.Element(a, i))
		if len(ends) == 1 {
			orders = append(orders, fmt.Sprintf("%s = %d", el, ends[0]))
		} else {
			orders = append(orders, fmt.Sprintf("%s in %v", el, ends))
		}
	}
	tail := ""
	if possible {
		tail = ": the final value is possible, what they returned is not"
	}
	return &sched.Failure{Kind: KindLostUpdate, Thread: -1,
		Message: fmt.Sprintf("every thread exited, but %s: no order of the atomics, one at a time (each thread's in its order), gives that and what they returned (%s); every order ends with %s%s",
			strings.Join(finals, ", "), strings.Join(calls, "; "), strings.Join(orders, ", "), tail)}
}

// orderFinals are the values element cell ends with after the threads'
// atomics on it run one at a time from zero, each thread's in its order,
// in every such order (what they return aside), sorted.
func orderFinals(threads [][]model.AtomicCall, cell int) []int {
	seqs := callsOn(threads, cell)
	for _, sq := range seqs {
		for i := range sq {
			sq[i].Old = 0 // what it returned aside: threads that make the same calls are alike
		}
	}
	var ends []int
	walkOrders(seqs, false, func(v int) bool {
		if !slices.Contains(ends, v) {
			ends = append(ends, v)
		}
		return false
	})
	slices.Sort(ends)
	return ends
}

// atomicsExplained reports whether some order of the threads' atomics,
// each thread's in its order, one at a time from zero, gives what each
// returned and the final values final(array, index) of the elements they
// touched (porcupine, memSpec).
func atomicsExplained(threads [][]model.AtomicCall, final func(a, i int) int) bool {
	for _, c := range touchedCells(threads) {
		n := 0
		for _, sq := range callsOn(threads, c) {
			n += len(sq)
		}
		if n > porcupineOps {
			return explainedGrouped(threads, final)
		}
	}
	return porcupineExplained(threads, final)
}

// porcupineOps is the most atomics on one element that porcupine checks
// (a cache entry per subset placed: 4096 at 12).
const porcupineOps = 12

// porcupineExplained is atomicsExplained by porcupine (memSpec).
func porcupineExplained(threads [][]model.AtomicCall, final func(a, i int) int) bool {
	var ops []porcupine.Operation
	for i, calls := range threads {
		k := map[int]int{} // per cell, the thread's atomics on it so far
		for _, c := range calls {
			cell := cellOf(c)
			ops = append(ops, porcupine.Operation{ClientId: i, Input: memIn{cell: cell, thread: i, k: k[cell], call: c}, Output: c.Old, Call: 0, Return: 1})
			k[cell]++
		}
	}
	for _, c := range touchedCells(threads) {
		a, i := c/scenario.MaxArraySize, c%scenario.MaxArraySize
		ops = append(ops, porcupine.Operation{ClientId: -1, Input: memIn{final: true, cell: c}, Output: final(a, i), Call: 2, Return: 3})
	}
	return porcupine.CheckOperations(memSpec(len(threads)), ops)
}

// explainedGrouped is atomicsExplained by a search over orders whose
// states merge interchangeable threads: per element, threads whose calls
// on it are the same (operation, arguments, returned value) form a
// group, and a state is the element's value and, per group, how many of
// its threads have made how many of their calls.
func explainedGrouped(threads [][]model.AtomicCall, final func(a, i int) int) bool {
	for _, c := range touchedCells(threads) {
		if !explainedCell(callsOn(threads, c), final(c/scenario.MaxArraySize, c%scenario.MaxArraySize)) {
			return false
		}
	}
	return true
}

// explainedCell: some order of seqs (each in its own order, one call at a
// time from zero, each returning its Old, a store anything) ends with
// final.
func explainedCell(seqs [][]model.AtomicCall, final int) bool {
	return walkOrders(seqs, true, func(v int) bool { return v == final })
}

// walkOrders runs seqs in every order that keeps each one's own, one call
// at a time from zero (with olds, only where each call returns its Old),
// and calls end with each order's final value until it returns true;
// it reports whether one did. Identical sequences are interchangeable:
// a state is the value and, per group of them, how many have made how
// many calls, so that symmetric orders are walked once.
func walkOrders(seqs [][]model.AtomicCall, olds bool, end func(v int) bool) bool {
	var groups [][]model.AtomicCall
	var size []int
	for _, sq := range seqs {
		g := slices.IndexFunc(groups, func(o []model.AtomicCall) bool { return slices.Equal(o, sq) })
		if g < 0 {
			groups, size = append(groups, sq), append(size, 0)
			g = len(groups) - 1
		}
		size[g]++
	}
	// at[g][p]: how many of group g's sequences have made p calls
	at := make([][]int, len(groups))
	for g, sq := range groups {
		at[g] = make([]int, len(sq)+1)
		at[g][0] = size[g]
	}
	seen := map[string]bool{}
	key := func(v int) string {
		b := []byte(strconv.Itoa(v))
		for _, row := range at {
			for _, n := range row {
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(n), 10)
			}
		}
		return string(b)
	}
	var walk func(v int) bool
	walk = func(v int) bool {
		k := key(v)
		if seen[k] {
			return false
		}
		seen[k] = true
		done := true
		for g, sq := range groups {
			for p, c := range sq {
				if at[g][p] == 0 {
					continue
				}
				done = false
				if olds && !c.Store && c.Old != v {
					continue
				}
				at[g][p]--
				at[g][p+1]++
				stop := walk(c.Apply(v))
				at[g][p]++
				at[g][p+1]--
				if stop {
					return true
				}
			}
		}
		return done && end(v)
	}
	return walk(0)
}

// callsOn is, for each thread with any, its calls on element cell, in
// its order (copies: a caller may change them).
func callsOn(threads [][]model.AtomicCall, cell int) [][]model.AtomicCall {
	var seqs [][]model.AtomicCall
	for _, calls := range threads {
		var on []model.AtomicCall
		for _, c := range calls {
			if cellOf(c) == cell {
				on = append(on, c)
			}
		}
		if len(on) > 0 {
			seqs = append(seqs, on)
		}
	}
	return seqs
}

// cellOf numbers an atomic's element.
func cellOf(c model.AtomicCall) int { return c.Array*scenario.MaxArraySize + c.Index }

// touchedCells are the elements the atomics touch, in order.
func touchedCells(threads [][]model.AtomicCall) []int {
	var cells []int
	for _, calls := range threads {
		for _, c := range calls {
			if !slices.Contains(cells, cellOf(c)) {
				cells = append(cells, cellOf(c))
			}
		}
	}
	slices.Sort(cells)
	return cells
}

// atomicCallText is an atomic as the kernel calls it: atomic.add(a, 0, 1).
func atomicCallText(sc *scenario.Scenario, c model.AtomicCall) string {
	return sc.AtomicCall(scenario.Stmt{Kind: scenario.OpAtomic, Atomic: c.Op, Array: c.Array, Index: c.Index, Value: c.Value, Cmp: c.Cmp})
}

// staleReadFailure is the stale-read failure of ev.
func staleReadFailure(p *model.Program, ev *model.Event) *sched.Failure {
	p.Describe(ev)
	return &sched.Failure{Kind: KindStaleRead, Thread: sched.ThreadID(ev.Thread),
		Message: fmt.Sprintf("%s: %s after cuda.syncthreads() reads its array #%d, but the slot's last store before the barrier, by another thread of its block, went into array #%d",
			p.ThreadName(ev.Thread), ev.Text, int(ev.Saw), int(ev.Want))}
}

// sharedSplitFailure is the shared-not-shared failure of ev.
func sharedSplitFailure(p *model.Program, ev *model.Event) *sched.Failure {
	return &sched.Failure{Kind: KindSharedNotShared, Thread: sched.ThreadID(ev.Thread),
		Message: fmt.Sprintf("%s: cuda.shared.array returned array #%d, but a thread of its launch got array #%d from the same line: FakeCUDAShared._allocations[caller] was stored twice, and the block's threads do not share the array",
			p.ThreadName(ev.Thread), int(ev.Saw), int(ev.Want))}
}

// ArraysPrinted is what a user's main.py prints of the kernel's arrays
// after schedule ("a = [1]", numpy's rendering of an int64 array), and
// what it prints after any order of their atomics run one at a time, or
// "" for an array whose orders end differently.
func ArraysPrinted(p *model.Program, schedule []sched.ThreadID) (got, orders []string, err error) {
	w := model.New(p)
	for i, t := range schedule {
		if int(t) < 0 || int(t) >= w.NumThreads() || w.Status(int(t)) != sched.Runnable {
			return nil, nil, fmt.Errorf("step %d: thread %d cannot step", i+1, t)
		}
		w.Step(int(t))
	}
	var threads [][]model.AtomicCall
	for t := range p.NumThreads() {
		if calls := w.AtomicCalls(t); len(calls) > 0 {
			threads = append(threads, calls)
		}
	}
	for a, arr := range p.Scenario.Arrays {
		g, o := make([]string, arr.Size), make([]string, arr.Size)
		agree := true
		for i := range arr.Size {
			g[i] = strconv.Itoa(w.Element(a, i))
			ends := orderFinals(threads, a*scenario.MaxArraySize+i)
			agree = agree && len(ends) == 1
			if len(ends) == 1 {
				o[i] = strconv.Itoa(ends[0])
			}
		}
		got = append(got, fmt.Sprintf("%s = [%s]", arr.Name, strings.Join(g, " ")))
		if agree {
			orders = append(orders, fmt.Sprintf("%s = [%s]", arr.Name, strings.Join(o, " ")))
		} else {
			orders = append(orders, "")
		}
	}
	return got, orders, nil
}
