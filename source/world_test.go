package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

func TestSmoke(t *testing.T) {
	for _, name := range []string{"naive", "global_lock", "refcount_unregistered", "refcount_del", "merged"} {
		p := load(t, pyvm.V311, "../testdata/python/"+name+".py", scenario.DefaultShape, model.GIL)
		r := sched.States{}.Run(source.New(p), sched.Limits{})
		t.Logf("%s: %s %v states=%d", name, r.Verdict, r.Failure, r.Stats.States)
		require.NotEqual(t, sched.Incomplete, r.Verdict)
	}
}

func TestSmokeAll(t *testing.T) {
	shapes := []scenario.Shape{
		{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
		{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
		{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1},
	}
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312, pyvm.V313} {
		for _, a := range model.Atomicities() {
			for _, sh := range shapes {
				for _, name := range []string{"naive", "global_lock", "refcount_unregistered", "refcount_del", "merged"} {
					p := load(t, v, "../testdata/python/"+name+".py", sh, a)
					r := sched.States{}.Run(source.New(p), sched.Limits{})
					k := ""
					if r.Failure != nil {
						k = r.Failure.Kind
					}
					t.Logf("%s %s %+v %s: %s %s states=%d", v, a, sh, name, r.Verdict, k, r.Stats.States)
				}
			}
		}
	}
}

func TestSmokeDebian(t *testing.T) {
	for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312} {
		p := load(t, v, "/usr/lib/python3/dist-packages/numba/cuda/simulator/kernelapi.py", scenario.DefaultShape, model.GIL)
		r := sched.States{}.Run(source.New(p), sched.Limits{})
		t.Logf("%s: %s %v states=%d", v, r.Verdict, r.Failure, r.Stats.States)
	}
}

func TestSmokeUpstream(t *testing.T) {
	for _, c := range []string{"55a84eb7", "8356c6f8", "41104c54", "67acbfbd", "d41b90d3", "HEAD"} {
		for _, v := range []pyvm.Version{pyvm.V311, pyvm.V312, pyvm.V313} {
			for _, sh := range []scenario.Shape{scenario.DefaultShape, {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1}} {
				p := load(t, v, "/work/upstream/kernelapi-"+c+".py", sh, model.GIL)
				r := sched.States{}.Run(source.New(p), sched.Limits{})
				t.Logf("%s %s nest%d: %s %v states=%d", c, v, sh.Nest, r.Verdict, r.Failure, r.Stats.States)
			}
		}
	}
}
