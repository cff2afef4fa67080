package pyreplay

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A regression test for numba-cuda's own suite
// (numba_cuda/numba/cuda/tests/cudasim): a CUDATestCase whose kernel
// calls a device function kept in a support module of its own, as
// cudasim/support.py keeps its one, run by pytest.
//
// It forces the counterexample's interleaving with the least machinery
// that works: a checkpoint call before each statement of the kernel's
// and the device functions' bodies and at the end of each body
// (Turns.checkpoint, in the support module), and an order of
// (block, thread, checkpoint) that lets one thread at a time run from a
// checkpoint to its next one. The swap runs whole between two
// checkpoints (a device function's entry between the call and its
// body's first checkpoint, its exit between its last and the caller's
// next), so only counterexamples whose swaps need not interleave inside
// swapped_cuda_module can be forced: naive's, where each thread's whole
// entry or exit is one step of the story; the refcount family's need
// a thread stopped inside the swap, which the Python replay
// (-emit-python) forces instead.
//
// Nothing in it depends on CPython's bytecode, so it runs the same on
// every version numba-cuda supports.

// TestFiles are the two files of a regression test: the test module and
// its support module, by file name.
type TestFiles struct {
	Test, Support File
}

// testName is what -emit-test accepts as a test file's name.
var testName = regexp.MustCompile(`^test_([a-z][a-z0-9_]*)\.py$`)

// EmitTest writes the regression test of r's counterexample as the test
// module file (test_NAME.py, which pytest collects) and its support
// module (support_NAME.py, next to it). An *Unsupported error says in one
// line what the test cannot force.
func EmitTest(r *check.Report, file string) (*TestFiles, error) {
	m := testName.FindStringSubmatch(file)
	if m == nil {
		return nil, fmt.Errorf("%s: name the test test_NAME.py (NAME in lower case), as pytest collects it", file)
	}
	name := m[1]
	if r.Result.Verdict != sched.Violation || r.Result.Failure == nil {
		return nil, fmt.Errorf("the verdict is %s, not a violation: there is no counterexample to test", r.Result.Verdict)
	}
	p, f := r.Program, r.Result.Failure
	sc := p.Scenario
	switch {
	case f.Kind != check.KindUseSawReal && f.Kind != check.KindUseSawNone:
		return nil, testUnsupported("the violation kind %s (it checks a use of cuda that raises AttributeError: use-saw-real, use-saw-none)", f.Kind)
	case p.Atomicity != model.GIL && p.Atomicity != model.GILBreaker:
		return nil, testUnsupported("atomicity %s (only gil and gil-breaker)", p.Atomicity)
	case sc.NumHosts() > 1 || sc.Launches > 1 || sc.Host != nil || sc.Faults != 0:
		return nil, testUnsupported("several hosts, launches, host calls or faults (it launches the kernel once)")
	}
	dev := -1
	for _, fn := range sc.Functions {
		switch {
		case fn.Module == 0:
			return nil, testUnsupported("a device function in the kernel's module (%s: the test keeps them in its support module)", fn.Name)
		case dev >= 0 && fn.Module != dev:
			return nil, testUnsupported("device functions in several modules (the test has one support module)")
		}
		dev = fn.Module
	}
	for _, body := range append([][]scenario.Stmt{sc.Kernel}, funcBodies(sc)...) {
		for _, s := range allStmts(body) {
			if s.Kind == scenario.OpSync || s.Kind == scenario.OpRaise {
				return nil, testUnsupported("syncthreads or a raising kernel (a thread held at the barrier or dead would stop the others at their checkpoints)")
			}
		}
	}
	order, story, err := checkpointOrder(p, r.Result.Schedule, f)
	if err != nil {
		return nil, err
	}
	support := supportSource(sc, dev)
	test := testSource(r, sc, name, order, story)
	return &TestFiles{
		Test:    File{Name: file, Text: test},
		Support: File{Name: "support_" + name + ".py", Text: support},
	}, nil
}

func testUnsupported(format string, args ...any) error {
	return &Unsupported{What: fmt.Sprintf(format, args...), Test: true}
}

// turn is a thread's run from its K-th checkpoint to its next one.
type testTurn struct{ block, tid, k int }

// checkpointOrder splits each GPU thread's steps of the schedule at its
// checkpoints, orders the parts by their first steps, and checks in the
// model that running the parts whole, in that order, ends in the same
// violation; story says in words what each part does.
func checkpointOrder(p *model.Program, schedule []sched.ThreadID, want *sched.Failure) ([]testTurn, []string, error) {
	steps, err := check.Steps(p, schedule)
	if err != nil {
		return nil, nil, err
	}
	infos := threadInfos(p)
	yield := slices.IndexFunc(p.Protocol.Code, func(in model.Instr) bool { return in.Yield })
	type frame struct {
		name string
		left int // statements of its run not yet begun
	}
	stacks := make([][]frame, p.NumThreads())
	passed := make([]int, p.NumThreads()) // checkpoints passed
	part := make([]int, len(steps))       // each step's part, -1 for the host's
	var turns []testTurn
	var story []string
	first := map[[2]int]int{} // (thread, checkpoint): its part
	partOf := func(t int, what string) int {
		key := [2]int{t, passed[t] - 1}
		if i, ok := first[key]; ok {
			return i
		}
		first[key] = len(turns)
		in := infos[t]
		turns = append(turns, testTurn{in.block, in.tid, passed[t] - 1})
		story = append(story, fmt.Sprintf("%s: %s", p.ThreadName(t), what))
		return first[key]
	}
	bodyOf := map[string][]scenario.Stmt{"kernel": p.Scenario.Kernel}
	for _, fn := range p.Scenario.Functions {
		bodyOf[fn.Name] = fn.Body
	}
	for i, s := range steps {
		t, ev := s.Thread, &steps[i].Event
		if infos[t].host {
			part[i] = -1
			continue
		}
		st := stacks[t]
		switch {
		case !strings.HasPrefix(ev.Where, p.Protocol.Source+":"):
			// a statement, its checkpoint before it
			if len(st) == 0 {
				st = append(st, frame{"kernel", len(flatten(bodyOf["kernel"], infos[t].tid, infos[t].block))})
			}
			passed[t]++
			st[len(st)-1].left--
			what := ev.Where + ": " + ev.Text
			if strings.HasPrefix(ev.Text, "with swapped_cuda_module") {
				callee := ev.Text[strings.LastIndex(ev.Text, "# ")+2:]
				callee, _, _ = strings.Cut(callee, "(") // "f1()", "square(i)"
				what = fmt.Sprintf("%s: calls %s() (swapped_cuda_module's entry, up to its body)", ev.Where, callee)
				st = append(st, frame{callee, len(flatten(bodyOf[callee], infos[t].tid, infos[t].block))})
			}
			stacks[t] = st
			part[i] = partOf(t, what)
		default:
			at := slices.IndexFunc(p.Protocol.Code, func(in model.Instr) bool {
				return in.Line == ev.Line && in.Text == ev.Text && in.Bytecode == ev.Bytecode
			})
			if at > yield && len(st) > 1 && st[len(st)-1].left >= 0 {
				// the body's end: its last checkpoint, then the exit
				top := st[len(st)-1]
				passed[t]++
				st[len(st)-1].left = -1
				part[i] = partOf(t, fmt.Sprintf("returns from %s() (swapped_cuda_module's exit)", top.name))
				stacks[t] = st[:len(st)-1]
				continue
			}
			if len(st) == 0 || passed[t] == 0 {
				return nil, nil, fmt.Errorf("internal: step %d: %s runs the swap outside a call", i+1, p.ThreadName(t))
			}
			part[i] = partOf(t, "")
		}
	}
	// the parts whole, by their first steps; the host's steps stay where
	// they were among them
	idx := make([]int, len(steps))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) int {
		if part[i] < 0 {
			return i
		}
		return slices.Index(part, part[i])
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	coarse := make([]sched.ThreadID, len(idx))
	for i, j := range idx {
		coarse[i] = schedule[j]
	}
	res, err := sched.Replay(check.NewScopedSystem(p, check.ScopeHarmful), coarse, sched.Limits{})
	if err != nil || res.Verdict != sched.Violation || res.Failure.Kind != want.Kind || res.Failure.Thread != want.Thread {
		return nil, nil, testUnsupported("this interleaving: its threads' swaps must interleave inside swapped_cuda_module, " +
			"where no checkpoint in a body can stop them (-emit-python replays it)")
	}
	return turns, story, nil
}

// supportSource is the support module: Turns and its one instance, and
// the device functions of module dev, a checkpoint before each statement
// and at the end of each body.
func supportSource(sc *scenario.Scenario, dev int) string {
	b := &source{at: map[*scenario.Stmt]int{}, hook: "turns.checkpoint()"}
	b.add(`"""Support for a regression test written by swapcheck (explore -emit-test):
its device function(s), in a module of their own as cudasim/support.py
keeps its one, and Turns, which orders the simulator's threads."""
import threading
import time

import numba`)
	if dev >= 0 {
		for i, name := range sc.Modules[dev].Names {
			if i == 0 && name == "cuda" {
				b.add("from numba import cuda")
			} else {
				b.add("from numba import cuda as %s", name)
			}
		}
	}
	b.lines = append(b.lines, strings.Split(strings.TrimSuffix(turnsSource, "\n"), "\n")...)
	b.add("\n\nturns = Turns()")
	for i := range sc.Functions {
		fn := &sc.Functions[i]
		b.add("\n\n@%s(device=True)\n%s", sc.Modules[dev].Jit(), fn.Def())
		writeBlock(b, sc, dev, fn.Body, map[int]bool{}, "    ")
		b.add("    turns.checkpoint()")
	}
	return b.text()
}

// testSource is the test module.
func testSource(r *check.Report, sc *scenario.Scenario, name string, order []testTurn, story []string) string {
	class := "Test"
	for _, w := range strings.Split(name, "_") {
		if w != "" {
			class += strings.ToUpper(w[:1]) + w[1:]
		}
	}
	b := &source{at: map[*scenario.Stmt]int{}, hook: "support.turns.checkpoint()"}
	f := r.Result.Failure
	b.add(`"""Regression test for the race in the CUDA simulator's swap of a module's
cuda global (swapped_cuda_module, simulator/kernelapi.py).

Written by swapcheck (explore -emit-test) from its counterexample of the
%s swap:

    %s

The kernel launches %d thread(s); checkpoints (support_%s.Turns) in the
kernel's and the device function's bodies let one thread at a time run
from one checkpoint to its next, in this order:

%s
With the race, the launch raises the AttributeError a user sees; with a
swap without it, the kernel runs through.
"""`, r.Program.Protocol.Name, f.Message, sc.Threads*sc.Blocks, name, storyText(story))
	b.add("import unittest\n\nimport numba")
	for i, n := range sc.Modules[0].Names {
		if i == 0 && n == "cuda" {
			b.add("from numba import cuda")
		} else {
			b.add("from numba import cuda as %s", n)
		}
	}
	b.add("from numba.cuda.testing import CUDATestCase, skip_unless_cudasim")
	b.add(`
try:
    # in numba-cuda's tree, next to cudasim/support.py
    from numba.cuda.tests.cudasim import support_%[1]s as support
except ImportError:
    # anywhere else: the module next to this file (pytest puts this
    # file's directory on sys.path)
    import support_%[1]s as support
`, name)
	b.add("\n\n@skip_unless_cudasim(\"the swap of the cuda module is the simulator's\")")
	b.add("class %s(CUDATestCase):", class)
	b.add("    def test_%s(self):", name)
	for _, fn := range sc.Functions {
		b.add("        %s = support.%s", fn.Name, fn.Name)
	}
	b.add("\n        @%s.jit\n        def kernel():", sc.Modules[0].Names[0])
	writeBlock(b, sc, 0, sc.Kernel, map[int]bool{}, "            ")
	b.add("            support.turns.checkpoint()")
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("(%d, %d, %d)", t.block, t.tid, t.k))
	}
	b.add("\n        # (block, thread, checkpoint): each runs to its next checkpoint alone")
	b.add("        support.turns.start([%s])", strings.Join(parts, ", "))
	b.add("        try:\n            kernel[%d, %d]()\n        finally:\n            support.turns.stop()", sc.Blocks, sc.Threads)
	b.add("        self.assertIsNone(support.turns.failure)")
	b.add("\n\nif __name__ == \"__main__\":\n    unittest.main()")
	return b.text()
}

func storyText(story []string) string {
	var b strings.Builder
	n := 0
	for _, s := range story {
		if strings.HasSuffix(s, ": ") {
			continue
		}
		n++
		fmt.Fprintf(&b, "    %d. %s\n", n, s)
	}
	return b.String()
}

// turnsSource opens the support module: Turns, which makes the
// simulator's threads pass their checkpoints in a given order.
const turnsSource = `

class Turns:
    """Lets the simulator's threads pass the checkpoints in the kernel's
    and the device functions' bodies in a given order: (block, thread, k)
    runs from that thread's k-th checkpoint to its next one (or to its
    death: a thread that raised reaches no checkpoint again) while every
    other thread waits at its own. A thread whose next checkpoint is not
    the order's next waits; once the last one in the order has run, or
    stop() is called, all run on freely. A thread is named by its
    BlockThread's blockIdx and threadIdx, not through cuda, whose swap is
    what the test tests."""

    def __init__(self):
        self._cv = threading.Condition()
        self.start([])

    def start(self, order, timeout=10.0):
        with self._cv:
            self._order = [tuple(o) for o in order]
            self._pos = 0
            self._passed = {}
            self._holder = None
            self._holder_thread = None
            self._timeout = timeout
            self._free = not self._order
            self.failure = None

    def stop(self):
        with self._cv:
            self._free = True
            self._cv.notify_all()

    def checkpoint(self):
        th = threading.current_thread()
        me = (th.blockIdx.x, th.threadIdx.x)
        with self._cv:
            k = self._passed.get(me, 0)
            self._passed[me] = k + 1
            if self._holder == me:  # its run ends here
                self._next()
            deadline = time.monotonic() + self._timeout
            while not self._free and self._order[self._pos] != me + (k,):
                if self._holder is not None and not self._holder_thread.is_alive():
                    self._next()  # the holder died (its BlockThread keeps the exception)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    self.failure = ("thread %s waited %.0f s at its checkpoint %d: turn %d of %d, %s, never came"
                                    % (me, self._timeout, k, self._pos + 1, len(self._order), self._order[self._pos]))
                    self._free = True
                    self._cv.notify_all()
                    return
                self._cv.wait(min(left, 0.01))
            if not self._free:
                self._holder, self._holder_thread = me, th

    def _next(self):
        self._holder = self._holder_thread = None
        self._pos += 1
        self._free = self._free or self._pos == len(self._order)
        self._cv.notify_all()
`
