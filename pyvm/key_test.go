package pyvm_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"swapcheck/internal/testenv"
	"swapcheck/pyvm"
)

// swapTasks drives n threads through one with statement each over a
// variant's swap, as the simulator's threads do: the call
// swapped_cuda_module(fn, fake), cm.__enter__(), cm.__exit__(None, None,
// None), one phase after the other; a phase that raises ends the thread.
type swapTasks struct {
	t     *testing.T
	p     *pyvm.Program
	swap  pyvm.Value
	fn    pyvm.Value
	fakes []pyvm.Value
	phase []int        // per thread: the phases begun (0: none yet)
	cm    []pyvm.Value // per thread: its context manager, once called
	over  []bool       // per thread: no step left
}

func newSwapTasks(t *testing.T, p *pyvm.Program, swap, fn pyvm.Value, fakes []pyvm.Value) *swapTasks {
	n := len(fakes)
	return &swapTasks{t: t, p: p, swap: swap, fn: fn, fakes: fakes,
		phase: make([]int, n), cm: make([]pyvm.Value, n), over: make([]bool, n)}
}

func (w *swapTasks) clone() *swapTasks {
	c := *w
	c.phase = append([]int(nil), w.phase...)
	c.cm = append([]pyvm.Value(nil), w.cm...)
	c.over = append([]bool(nil), w.over...)
	return &c
}

// step runs thread i's next step on s (beginning its next phase when the
// last one ended) and reports whether it could run (false: blocked or
// over).
func (w *swapTasks) step(s *pyvm.State, i int) bool {
	if w.over[i] {
		return false
	}
	if s.Status(i) == pyvm.Idle {
		if w.phase[i] > 0 {
			v, exc := s.Result(i)
			if exc.K != 0 || w.phase[i] == 3 {
				w.over[i] = true
				return false
			}
			if w.phase[i] == 1 {
				w.cm[i] = v
			}
		}
		switch w.phase[i] {
		case 0:
			s.Begin(i, w.swap, w.fn, w.fakes[i])
		case 1:
			require.NoError(w.t, s.Enter(i, w.cm[i]))
		case 2:
			require.NoError(w.t, s.Exit(i, w.cm[i], pyvm.None))
		}
		w.phase[i]++
	}
	var info pyvm.StepInfo
	w.p.Step(s, i, &info)
	require.Empty(w.t, info.Fault)
	return !info.Blocked
}

// key is the state's key with the driver's own state (each thread's
// phase) in front.
func (w *swapTasks) key(s *pyvm.State) string {
	b := []byte(fmt.Sprint(w.phase, w.over))
	return string(s.AppendKey(b))
}

// TestKeyIgnoresAllocationOrderAndGarbage: two threads each make their
// context manager (a frame, a generator, the manager: objects of their
// own), in either order or interleaved, and the key is the same, though
// the heap numbers the objects differently; an object nothing reaches
// does not change it, one the module reaches does, and so does a changed
// value in the module; a thread passed another fake does.
func TestKeyIgnoresAllocationOrderAndGarbage(t *testing.T) {
	for _, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			p, s0, g, swap, fn, fake := swapWorldThreads(t, v, "../testdata/python/merged.py", 2)
			fakes := []pyvm.Value{fake, fake}
			// order runs each thread's call phase to its end, in the order given.
			order := func(threads ...int) (*pyvm.State, *swapTasks) {
				s, w := s0.Clone(), newSwapTasks(t, p, swap, fn, fakes)
				for _, i := range threads {
					w.step(s, i)
					for s.Status(i) == pyvm.Running {
						w.step(s, i)
					}
				}
				return s, w
			}
			s01, w01 := order(0, 1)
			s10, w10 := order(1, 0)
			require.Equal(t, w01.key(s01), w10.key(s10), "thread 0 then 1, against 1 then 0")
			// Interleaved: one step each in turn.
			s, w := s0.Clone(), newSwapTasks(t, p, swap, fn, fakes)
			for s.Status(0) == pyvm.Running || s.Status(1) == pyvm.Running || w.phase[0] == 0 {
				w.step(s, 0)
				w.step(s, 1)
			}
			require.Equal(t, w01.key(s01), w.key(s), "interleaved")

			garbage := s01.Clone()
			garbage.NewDict()
			require.Equal(t, w01.key(s01), w01.key(garbage), "an unreachable dict")
			changed := s01.Clone()
			changed.DictSet(g, p.Str("x"), pyvm.Int(4))
			require.NotEqual(t, w01.key(s01), w01.key(changed), "the device module's x changed")
			reached := s01.Clone()
			reached.DictSet(g, p.Str("y"), reached.NewDict())
			require.NotEqual(t, w01.key(s01), w01.key(reached), "a dict the module reaches")

			other := s0.Clone()
			w2 := newSwapTasks(t, p, swap, fn, []pyvm.Value{fake, other.NewHostObject("fake2", 4)})
			for _, i := range []int{0, 1} {
				w2.step(other, i)
				for other.Status(i) == pyvm.Running {
					w2.step(other, i)
				}
			}
			require.NotEqual(t, w01.key(s01), w2.key(other), "thread 1 passed another fake")
		})
	}
}

// TestKeyIsSound: over random schedules (seeded: 20 by default, 60
// under SWAPCHECK_LONG=1) of two threads through a
// variant's swap, two states with equal keys are the same state: they
// render equally (ObserveForTest: every thread's frames, locals and
// stacks, the module's registries and locks, the device module), and each
// thread's next step from both leads to states that again have equal
// keys and render equally. How many distinct keys and renderings were met
// is logged.
func TestKeyIsSound(t *testing.T) {
	files := []string{"merged", "refcount_del", "global_lock"}
	for vi, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			// By default one variant per version, in turn; all under
			// SWAPCHECK_LONG=1.
			for _, fi := range testenv.Rotate(vi, len(files)) {
				file := files[fi]
				t.Run(file, func(t *testing.T) {
					p, s0, g, swap, fn, fake := swapWorldThreads(t, v, "../testdata/python/"+file+".py", 2)
					type met struct {
						s   *pyvm.State
						w   *swapTasks
						obs string
					}
					seen := map[string]met{}
					renderings := map[string]bool{}
					observe := func(s *pyvm.State, w *swapTasks) string {
						return fmt.Sprint(w.phase, w.over) + s.ObserveForTest(g)
					}
					schedules := 20
					if testenv.Long() {
						schedules = 60 // with every variant of every version
					}
					rng := rand.New(rand.NewPCG(1, uint64(vi)))
					for range schedules {
						s, w := s0.Clone(), newSwapTasks(t, p, swap, fn, []pyvm.Value{fake, fake})
						for n := 0; n < 400; n++ {
							i := rng.IntN(2)
							if !w.step(s, i) && !w.step(s, 1-i) {
								break // both over (or blocked)
							}
							k, obs := w.key(s), observe(s, w)
							renderings[obs] = true
							prev, ok := seen[k]
							if !ok {
								seen[k] = met{s.Clone(), w.clone(), obs}
								continue
							}
							require.Equal(t, prev.obs, obs, "two states with one key render differently")
							for j := 0; j < 2; j++ {
								a, wa := prev.s.Clone(), prev.w.clone()
								b, wb := s.Clone(), w.clone()
								wa.step(a, j)
								wb.step(b, j)
								require.Equal(t, wa.key(a) == wb.key(b), true, "thread %d's next step from two states with one key", j)
								require.Equal(t, observe(a, wa), observe(b, wb), "thread %d's next step from two states with one key", j)
							}
						}
					}
					t.Logf("%d schedules: %d keys, %d renderings", schedules, len(seen), len(renderings))
					require.LessOrEqual(t, len(renderings), len(seen))
				})
			}
		})
	}
}
