package check_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/sched"
)

// model.World says its state graph is Acyclic, and por then drops the
// stack proviso and runs on several workers (see sched.POR): a cycle it
// did not see would let it ignore a thread for ever. Every scenario
// file's graph, with its faults, for every protocol and atomicity mode,
// as a search sees it (a failing step ends an execution), is walked
// depth-first for a step back to a state on the stack. By default each
// file is walked for one variant and one mode, rotating along the files
// (every variant and mode is walked); SWAPCHECK_LONG=1 walks every file x
// variant, each in one mode (testenv.Pairwise: every file and every
// variant meets every mode), for CI's budget: the whole product took
// 155 s of it.
func TestStateGraphsAreAcyclic(t *testing.T) {
	sequentialOnly(t)
	var total, cut int
	cutNames := map[string]int{}
	scenarios, protocols, atomicities := scenarioFiles(t), check.Protocols(), model.Atomicities()
	for i, name := range slices.Sorted(maps.Keys(scenarios)) {
		sc := scenarios[name]
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Pairwise(i, pi, len(atomicities)) {
				a := atomicities[ai]
				prog, err := model.NewProgram(sc, p, a)
				require.NoError(t, err)
				sys := check.NewSystem(prog)
				require.True(t, sys.Acyclic())
				n, complete, cycle := walkForCycle(sys, walkBudget)
				require.Empty(t, cycle, "%s, %s, %s: a state reaches itself", name, p.Name, a)
				total += n
				if !complete {
					cut++
					cutNames[p.Name]++
				}
			}
		}
	}
	t.Logf("%d orbits walked; %d of the walks cut at %d orbits: %v", total, cut, walkBudget, cutNames)
}

// walkBudget is how many orbits one walk of TestStateGraphsAreAcyclic
// may store: proposed's and global-lock's graphs are walked whole; those
// of variants with violations can go on for millions of states past the
// first, where a search stops (the test logs which walks were cut).
const walkBudget = 100_000

// walkForCycle walks the orbits reachable from init depth-first, states
// equal up to symmetry once (sched.Canonical), until it has stored budget
// of them; it returns how many it stored, whether that was all, and, at
// the first step back to an orbit on the stack, the schedule to it. The graph of orbits has a cycle exactly when the graph of states
// does: a state that reaches π(s) from s reaches s again after as many
// turns as π's order.
func walkForCycle(init sched.System, budget int) (int, bool, string) {
	const onStack, done = 1, 2
	colour := map[string]uint8{}
	type frame struct {
		s    sched.System
		key  string
		kids []sched.ThreadID
		via  sched.ThreadID
	}
	key := func(s sched.System) string { return string(s.(sched.Canonical).AppendCanonicalKey(nil)) }
	k := key(init)
	colour[k] = onStack
	kids, _ := runnableOf(init)
	stack := []frame{{s: init.Clone(), key: k, kids: kids, via: -1}}
	for len(stack) > 0 && len(colour) < budget {
		top := &stack[len(stack)-1]
		if len(top.kids) == 0 {
			colour[top.key] = done
			stack = stack[:len(stack)-1]
			continue
		}
		t := top.kids[0]
		top.kids = top.kids[1:]
		c := top.s.Clone()
		if c.Step(t) != nil {
			continue // the execution ends here
		}
		ck := key(c)
		switch colour[ck] {
		case onStack:
			var path []sched.ThreadID
			for _, f := range stack[1:] {
				path = append(path, f.via)
			}
			return len(colour), false, fmt.Sprint(append(path, t))
		case done:
			continue
		}
		colour[ck] = onStack
		kids, _ := runnableOf(c)
		stack = append(stack, frame{s: c, key: ck, kids: kids, via: t})
	}
	return len(colour), len(stack) == 0, ""
}
