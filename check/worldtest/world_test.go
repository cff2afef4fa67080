package worldtest_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/swap"
	"swapcheck/variants"
)

// protocols are every registered variant: the tests that run each one
// read the registry, so none can be left out.
var protocols = variants.Protocols()

var atomicities = model.Atomicities()

func program(t testing.TB, sc *scenario.Scenario, p *model.Protocol, a model.Atomicity) *model.Program {
	t.Helper()
	pr, err := model.NewProgram(sc, p, a)
	require.NoError(t, err)
	return pr
}

func build(t testing.TB, sh scenario.Shape) *scenario.Scenario {
	t.Helper()
	sc, err := sh.Build()
	require.NoError(t, err)
	return sc
}

func parse(t testing.TB, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	return sc
}

// walkScenarios are the scenarios the walks below run: generated shapes,
// and written ones with exceptions, nesting into the same module and
// several launches.
func walkScenarios(t testing.TB) map[string]*scenario.Scenario {
	return map[string]*scenario.Scenario{
		"default":   build(t, scenario.DefaultShape),
		"two calls": build(t, scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 2, Nest: 1, Syncthreads: true}),
		"blocks":    build(t, scenario.Shape{Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1}),
		"modules":   build(t, scenario.Shape{Threads: 2, Blocks: 1, Calls: 3, Modules: 2, Names: 1}),
		"raises": parse(t, `threads 3
launches 2
module kernels cuda
module helpers cuda cu
device g in helpers: use cu.local; raise
device f in helpers: use cuda.local; call g
kernel: use cuda.threadIdx; call f; syncthreads`),
		"same module": parse(t, `threads 2
module kernels cuda
device g in kernels: use cuda.local
device f in kernels: call g; use cuda.shared
kernel: call f; call g`),
		// the barrier reads cuda (a use), in a device function
		"device barrier": parse(t, `threads 2
module kernels cuda
module dev1 cuda
device f in dev1: syncthreads
kernel: call f; call f`),
		// device functions called from the host, around and between
		// launches, one of which aborts
		"host calls": parse(t, `threads 2
launches 2
module kernels cuda
module dev1 cuda
device g in dev1: use cuda.local; syncthreads
device f in dev1: call g; raise
kernel: call g; raise
host: call f; launch; call g; launch; call g`),
		// two hosts, each launching a kernel that raises, one of them
		// calling a device function first (it reads the other's kernel
		// context); the assert may fail (the launch is skipped) or pass
		// for both
		"two hosts": parse(t, `threads 2
hosts 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local
kernel: call f; raise
host: call f; launch`),
	}
}

// runnable lists w's runnable threads, in increasing order.
func runnable(w *model.World) []sched.ThreadID {
	var out []sched.ThreadID
	for t := range w.NumThreads() {
		if w.Status(t) == sched.Runnable {
			out = append(out, sched.ThreadID(t))
		}
	}
	return out
}

// runnableUnfrozen lists w's runnable threads that frozen does not mark.
func runnableUnfrozen(w *model.World, frozen []bool) []sched.ThreadID {
	var out []sched.ThreadID
	for _, u := range runnable(w) {
		if !frozen[u] {
			out = append(out, u)
		}
	}
	return out
}

// walk runs w until no thread can move, choosing with c, and calls visit
// (when not nil) at every state before a step. It returns the steps taken.
func walk(w *model.World, c sched.Chooser, visit func(*model.World)) int {
	steps := 0
	for {
		if visit != nil {
			visit(w)
		}
		r := runnable(w)
		if len(r) == 0 {
			return steps
		}
		w.Step(int(c.Choose(r)))
		steps++
	}
}

// first always runs the lowest runnable thread.
type first struct{}

func (first) Choose(r []sched.ThreadID) sched.ThreadID { return r[0] }

func key(w *model.World) string { return string(w.AppendKey(nil)) }

func TestWorldClone(t *testing.T) {
	w := model.New(program(t, build(t, scenario.DefaultShape), swap.Merged, model.GIL))
	before := key(w)
	require.Equal(t, []byte(before), w.KeyView())

	c := w.Clone()
	require.Equal(t, before, key(c))
	require.Equal(t, sched.Runnable, c.Status(model.Host))
	c.Step(model.Host)
	require.Equal(t, before, key(w), "stepping a clone changed the original")
	require.NotEqual(t, before, key(c), "a step changed nothing")

	// Steps are deterministic: the same step from the same state gives the
	// same state.
	w.Step(model.Host)
	require.Equal(t, key(c), key(w))

	// Clones stay independent further on, both ways.
	d := c.Clone()
	walk(d, first{}, nil)
	require.Equal(t, key(w), key(c))
	walk(w, first{}, nil)
	require.NotEqual(t, key(w), key(c))
	require.Equal(t, key(d), key(w))

	// CopyFrom overwrites a world with another of the same program.
	e := model.New(w.Program())
	e.CopyFrom(c)
	require.Equal(t, key(c), key(e))
	e.Step(int(runnable(e)[0]))
	require.NotEqual(t, key(c), key(e), "stepping a copy changed its source")
}

// Two steps of different threads whose footprints are independent give the
// same state in either order, and neither disables the other.
//
// By default every scenario and protocol runs in one atomicity mode,
// rotating along the scenarios (testenv.Rotate); SWAPCHECK_LONG=1 runs
// every mode.
func TestIndependentStepsCommute(t *testing.T) {
	scs := walkScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		for _, p := range protocols {
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				t.Run(fmt.Sprintf("%s/%s/%s", name, p.Name, a), func(t *testing.T) {
					pairs := 0
					for seed := range uint64(20) {
						w := model.New(program(t, sc, p, a))
						walk(w, sched.NewSeeded(seed), func(w *model.World) {
							r := runnable(w)
							for i, u := range r {
								for _, v := range r[i+1:] {
									fu, fv := w.Footprint(int(u)), w.Footprint(int(v))
									if fu.Dependent(fv) {
										continue
									}
									pairs++
									uv, vu := w.Clone(), w.Clone()
									uv.Step(int(u))
									require.Equal(t, sched.Runnable, uv.Status(int(v)), "%d's step %+v disables %d's %+v", u, fu, v, fv)
									uv.Step(int(v))
									vu.Step(int(v))
									require.Equal(t, sched.Runnable, vu.Status(int(u)), "%d's step %+v disables %d's %+v", v, fv, u, fu)
									vu.Step(int(u))
									require.True(t, bytes.Equal(uv.KeyView(), vu.KeyView()),
										"threads %d (%+v) and %d (%+v) do not commute", u, fu, v, fv)
								}
							}
						})
					}
					t.Logf("%d independent pairs commute", pairs)
				})
			}
		}
	}
	// Two GPU threads' first steps, cuda.threadIdx in the kernel, are both
	// reads of the kernel module's globals: the simplest host-free pair.
	w := model.New(program(t, build(t, scenario.DefaultShape), swap.Merged, model.GIL))
	for w.Status(model.Host) == sched.Runnable { // the host starts the threads, then waits
		w.Step(model.Host)
	}
	require.Equal(t, []sched.ThreadID{1, 2}, runnable(w))
	require.False(t, w.Footprint(1).Dependent(w.Footprint(2)))
	ab, ba := w.Clone(), w.Clone()
	ab.Step(1)
	ab.Step(2)
	ba.Step(2)
	ba.Step(1)
	require.Equal(t, key(ab), key(ba))
}

// Every protocol under every scenario: the next step of a thread that is
// not done declares how it touches its object.
func TestFootprintAccess(t *testing.T) {
	for name, sc := range walkScenarios(t) {
		for _, p := range protocols {
			for _, a := range atomicities {
				t.Run(fmt.Sprintf("%s/%s/%s", name, p.Name, a), func(t *testing.T) {
					for seed := range uint64(5) {
						w := model.New(program(t, sc, p, a))
						walk(w, sched.NewSeeded(seed), func(w *model.World) {
							for th := range w.NumThreads() {
								if w.Status(th) == sched.Done {
									continue
								}
								fp := w.Footprint(th)
								require.NotZero(t, fp.Access, "thread %d (%s): %+v", th, w.Status(th), fp)
							}
						})
					}
				})
			}
		}
	}
}

// merged never deadlocks: every walk ends with every thread done.
func TestMergedWalksEnd(t *testing.T) {
	for name, sc := range walkScenarios(t) {
		for _, a := range atomicities {
			t.Run(fmt.Sprintf("%s/%s", name, a), func(t *testing.T) {
				p := program(t, sc, swap.Merged, a)
				for seed := range uint64(20) {
					w := model.New(p)
					steps := walk(w, sched.NewSeeded(seed), nil)
					require.Positive(t, steps)
					for th := range w.NumThreads() {
						require.Equal(t, sched.Done, w.Status(th), "seed %d: thread %s after %d steps", seed, p.ThreadName(th), steps)
					}
				}
			})
		}
	}
}

// steps is the length of the one execution of a one-thread scenario: the
// host starts the thread and then waits for it, so only one thread can
// ever move.
func steps(t *testing.T, sc *scenario.Scenario, p *model.Protocol, a model.Atomicity) int {
	w := model.New(program(t, sc, p, a))
	return walk(w, first{}, func(w *model.World) {
		require.LessOrEqual(t, len(runnable(w)), 1, "a one-thread scenario with two runnable threads")
	})
}

// In free-threaded CPython a defaultdict miss is two steps (the lookup,
// then __missing__'s store) where the GIL makes it one. With one thread the
// executions differ only by those extra steps, one per miss. One device
// call costs 4 extra steps in all, not 2: the launch itself runs the
// protocol too (with swapped_cuda_module(self.fn, ...) on the kernel's
// module), and misses on the lock and the count like the call does.
//
//   - every swap (the launch's own, on the kernel's module, and each device
//     call's, on its callee's) misses twice in refcount-unregistered: on
//     _globals_locks[gid] (the last exit deleted the lock) and on the
//     "_swap_refcount[gid] == 0" test (the last exit deleted the count);
//     the "+= 1" then finds the key the test inserted. So 2 + 2 per call.
//   - merged never deletes a lock: its first swap of each module misses on
//     the lock and the count, its later swaps of a module only on the
//     count. With one device module: 2 (launch) + 2 (first call) + 1 per
//     later call.
//
// Both free-threaded modes split a miss; they differ only when another
// thread stores the key in between, which one thread never does.
func TestFreeThreadedMissSteps(t *testing.T) {
	for _, a := range model.Atomicities() {
		if !a.NoGIL() {
			continue
		}
		for calls := range 4 {
			sc := build(t, scenario.Shape{Threads: 1, Blocks: 1, Calls: calls, Modules: 1, Names: 1})
			t.Run(fmt.Sprintf("%s/%d calls", a, calls), func(t *testing.T) {
				gil := steps(t, sc, swap.RefcountUnregistered, model.GIL)
				ft := steps(t, sc, swap.RefcountUnregistered, a)
				require.Equal(t, 2+2*calls, ft-gil, "refcount-unregistered: %d steps under the GIL, %d %s", gil, ft, a)

				gil = steps(t, sc, swap.Merged, model.GIL)
				ft = steps(t, sc, swap.Merged, a)
				want := 2
				if calls > 0 {
					want += 2 + (calls - 1)
				}
				require.Equal(t, want, ft-gil, "merged: %d steps under the GIL, %d %s", gil, ft, a)
			})
		}
	}
}

// AppendRunnable, the searches' one-pass Status, tells exactly what Status
// tells of every thread, on every state of seeded walks.
func TestAppendRunnableIsStatus(t *testing.T) {
	checked := 0
	for name, sc := range walkScenarios(t) {
		for _, p := range protocols {
			for _, a := range atomicities {
				prog := program(t, sc, p, a)
				for seed := range uint64(20) {
					walk(model.New(prog), sched.NewSeeded(seed), func(w *model.World) {
						var want []sched.ThreadID
						allDone := true
						for u := range w.NumThreads() {
							switch w.Status(u) {
							case sched.Runnable:
								want = append(want, sched.ThreadID(u))
								allDone = false
							case sched.Blocked:
								allDone = false
							}
						}
						got, done := w.AppendRunnable([]sched.ThreadID{99})
						require.Equal(t, append([]sched.ThreadID{99}, want...), got, "%s/%s/%s seed %d", name, p.Name, a, seed)
						require.Equal(t, allDone, done, "%s/%s/%s seed %d", name, p.Name, a, seed)
						checked++
					})
				}
			}
		}
	}
	require.Greater(t, checked, 10000)
}

// A search's steps record only numbers, and Describe fills in the texts:
// on every step of seeded walks they are the texts a traced step gives.
func TestDescribeIsTheTracedText(t *testing.T) {
	steps := 0
	for name, sc := range walkScenarios(t) {
		for _, p := range protocols {
			prog := program(t, sc, p, model.GIL)
			for seed := range uint64(10) {
				traced, plain := model.New(prog), model.New(prog)
				traced.Trace = true
				c := sched.NewSeeded(seed)
				for {
					r := runnable(plain)
					if len(r) == 0 {
						break
					}
					u := int(c.Choose(r))
					want := *traced.Step(u)
					got := plain.Step(u)
					require.Empty(t, got.Text+got.Where+got.Bytecode+got.Name, "%s/%s: an untraced step wrote texts", name, p.Name)
					prog.Describe(got)
					require.Equal(t, [5]string{want.Where, want.Text, want.Bytecode, want.Name, fmt.Sprint(want.Line)},
						[5]string{got.Where, got.Text, got.Bytecode, got.Name, fmt.Sprint(got.Line)}, "%s/%s seed %d step %d", name, p.Name, seed, steps)
					require.NotEmpty(t, got.Where)
					steps++
				}
			}
		}
	}
	require.Greater(t, steps, 1000)
}

// Two hosts: FakeCUDAKernel.__call__ tests _kernel_context (kernel.py:84)
// and _push_kernel_context's assert is a check, then a separate store. A
// host that tests after the other stored runs the kernel itself, as a
// device function (its launch never starts); one that tested before but
// checks after fails the assert (its launch never starts, no finally
// resets the context) and goes on; two that both check before either
// stores both launch.
func TestTwoHostsKernelContext(t *testing.T) {
	sc := parse(t, `threads 1
hosts 2
module kernels cuda
kernel: use cuda.threadIdx`)
	p := program(t, sc, swap.Merged, model.GIL)
	require.Equal(t, 2, p.NumHosts())
	require.Equal(t, 4, p.NumThreads(), "two hosts and one thread per host's launch")
	require.Equal(t, "host1", p.ThreadName(1))
	require.Equal(t, "L2.B0.T0", p.ThreadName(3))
	steps := func(w *model.World, threads ...int) *model.Event {
		var ev *model.Event
		for _, th := range threads {
			ev = w.Step(th)
		}
		return ev
	}
	allDone := func(w *model.World) {
		walk(w, first{}, nil)
		for th := range w.NumThreads() {
			require.Equal(t, sched.Done, w.Status(th))
		}
	}

	inline := model.New(p)
	inline.Trace = true
	ev := steps(inline, 0)
	require.Equal(t, "kernel.py:84", ev.Where)
	require.Equal(t, "kernel.py:31", steps(inline, 0).Where)
	steps(inline, 0) // host0: _kernel_context = fake#1
	ev = steps(inline, 1)
	require.Zero(t, ev.Raised)
	require.Equal(t, sched.Done, inline.Status(3), "host1's launch never starts")
	require.Equal(t, "kernel.py:85", steps(inline, 1).Where, "host1 runs the kernel itself")
	allDone(inline)

	assert := model.New(p)
	ev = steps(assert, 0, 1, 0, 0, 1) // both test, host0 checks and stores, host1 checks
	require.Equal(t, model.AssertionError, ev.Raised)
	require.False(t, ev.Machinery, "the simulator's assert, not the swap machinery")
	require.Equal(t, sched.Done, assert.Status(3), "host1's launch never starts")
	require.Equal(t, sched.Done, assert.Status(1), "host1 catches the AssertionError and has nothing left")
	allDone(assert)

	both := model.New(p)
	ev = steps(both, 0, 1, 0, 1, 0, 1) // both test, both check, both store
	require.Zero(t, ev.Raised, "host1 stores over host0's context")
	require.Equal(t, model.Fake(2), both.ContextForTest())
	allDone(both)
}
