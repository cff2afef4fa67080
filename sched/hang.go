package sched

import (
	"fmt"
	"strings"
)

// KindHang is the Failure kind of Hang: a state from which no execution
// ends.
const KindHang = "hang"

// Hang checks what the safety searches cannot see when a system's state
// graph has cycles (a thread that polls, a timed wait that finds nothing
// changed): that every reachable state can still reach an end, a state
// where every thread is done (or a failure, or a deadlock, which the
// other searches report). A state from which no execution ends is a
// hang: the threads that can move loop for ever and the others wait
// (a thread that spins holding a lock another needs). A fair scheduler
// does not help there, so this is a hang under every fairness
// assumption; a cycle that some execution can leave is not one.
//
// It is a breadth-first search that keeps the state graph (each state's
// successors, by number; states are keyed as States keys them, so a
// canonical key's orbits are the graph's nodes, which have the same
// futures up to renaming), then marks backward from the ends. The
// verdict: Verified (no hang), Violation with the shortest schedule to
// a hanging state, or Incomplete when the limits stopped it.
func Hang(init System, lim Limits) Result {
	keyOf := keyOf
	if _, ok := init.(Canonical); ok {
		keyOf = canonicalKeyOf
	}
	type node struct {
		parent int32
		by     ThreadID
		ends   bool // no thread can move here, or a step from here failed
		succ   []int32
	}
	var (
		res   Result
		nodes []node
		ids   = map[string]int32{}
		queue []System
		buf   []ThreadID
		key   []byte
	)
	stop := newStopper(lim, &res.Stats)
	add := func(s System, parent int32, by ThreadID) (int32, bool) {
		key = keyOf(s, key)
		if id, seen := ids[string(key)]; seen {
			return id, false
		}
		id := int32(len(nodes))
		ids[string(key)] = id
		nodes = append(nodes, node{parent: parent, by: by})
		queue = append(queue, s)
		res.Stats.States++
		return id, true
	}
	add(init.Clone(), -1, -1)
	for i := 0; i < len(queue); i++ {
		if i == 0 && stop.now() || stop.stopped() {
			res.Verdict, res.Cut = Incomplete, "stopped"
			return res
		}
		s := queue[i]
		queue[i] = nil
		buf, _ = runnable(s, buf[:0])
		if len(buf) == 0 {
			nodes[i].ends = true
			continue
		}
		for _, t := range buf {
			c := s.Clone()
			res.Stats.Steps++
			if f := c.Step(t); f != nil {
				nodes[i].ends = true
				continue
			}
			id, _ := add(c, int32(i), t)
			nodes[i].succ = append(nodes[i].succ, id)
		}
	}
	// mark every state that reaches an end, backwards
	preds := make([][]int32, len(nodes))
	for i := range nodes {
		for _, j := range nodes[i].succ {
			preds[j] = append(preds[j], int32(i))
		}
	}
	reaches := make([]bool, len(nodes))
	var work []int32
	for i := range nodes {
		if nodes[i].ends {
			reaches[i] = true
			work = append(work, int32(i))
		}
	}
	for len(work) > 0 {
		j := work[len(work)-1]
		work = work[:len(work)-1]
		for _, i := range preds[j] {
			if !reaches[i] {
				reaches[i] = true
				work = append(work, i)
			}
		}
	}
	for i := range nodes { // breadth-first numbering: the first is the nearest
		if reaches[i] {
			continue
		}
		var path []ThreadID
		for j := int32(i); nodes[j].parent >= 0; j = nodes[j].parent {
			path = append(path, nodes[j].by)
		}
		for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
			path[a], path[b] = path[b], path[a]
		}
		res.Verdict, res.Schedule = Violation, path
		res.Failure = &Failure{Kind: KindHang, Thread: -1, Message: hangMessage(init, path)}
		return res
	}
	res.Verdict, res.Complete = Verified, true
	return res
}

// hangMessage says which threads move in the hanging state the path
// reaches, and which wait.
func hangMessage(init System, path []ThreadID) string {
	s := init.Clone()
	for _, t := range path {
		s.Step(t)
	}
	var moving, waiting []string
	for t := range ThreadID(s.NumThreads()) {
		switch s.Status(t) {
		case Runnable:
			moving = append(moving, threadName(s, t))
		case Blocked:
			waiting = append(waiting, threadName(s, t))
		}
	}
	msg := "from here no execution can end, whatever runs next: some thread loops for ever while others wait (runnable now: " + strings.Join(moving, ", ")
	if len(waiting) > 0 {
		msg += "; blocked: " + strings.Join(waiting, ", ")
	}
	return msg + ")"
}

// Named is a System that names its threads for messages.
type Named interface {
	ThreadName(t ThreadID) string
}

// threadName is a Named system's name for t, else "thread t".
func threadName(s System, t ThreadID) string {
	if n, ok := s.(Named); ok {
		return n.ThreadName(t)
	}
	return fmt.Sprintf("thread %d", t)
}
