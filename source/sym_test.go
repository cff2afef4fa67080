package source_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// symmetryShapes are worlds with two or more alike GPU threads per block.
var symmetryShapes = []scenario.Shape{
	{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	{Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1},
	{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
	{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1},
	{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true},
	{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2},
	{Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true},
}

// branchShape has threads that run different code (thread 0 calls once,
// the others twice): symmetry may only exchange the threads of one kind.
// Its search takes seconds, so it runs with SWAPCHECK_LONG=1.
var branchShape = scenario.Shape{Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Branch: true}

// TestSymmetryChangesNoVerdict: keying states up to permuting a block's
// threads (Program.Symmetry) gives every variant the verdict and kind the
// full key gives, on fewer states.
func TestSymmetryChangesNoVerdict(t *testing.T) {
	modes := []model.Atomicity{model.GIL}
	shapes := symmetryShapes
	if testenv.Long() {
		modes = append(modes, model.GILBreaker)
		shapes = append(shapes[:len(shapes):len(shapes)], branchShape)
	}
	for _, a := range modes {
		for _, sh := range shapes {
			names := sourceVariants
			if sh.Hosts < 2 && a == model.GIL {
				// swapcheck's own fixes, whose threads carry objects
				// (the BlockThread's abort flag and kernel context),
				// which the key renames with their threads: under gil,
				// one host (two take seconds without symmetry)
				names = append(names[:len(names):len(names)], ownFixes...)
			}
			for _, name := range names {
				t.Run(fmt.Sprintf("%s/%s/%s", a, shapeName(sh), name), func(t *testing.T) {
					p := loadWith(t, pyvm.V312, "../testdata/python/"+name+".py", sh, a, source.Options{ThreadContext: slices.Contains(ownFixes, name)})
					sym := sched.States{}.Run(source.New(p), sched.Limits{})
					p.Symmetry = false
					full := sched.States{}.Run(source.New(p), sched.Limits{})
					require.Equal(t, full.Verdict, sym.Verdict)
					require.Equal(t, kindOf(full), kindOf(sym))
					if full.Verdict == sched.Verified {
						require.Less(t, sym.Stats.States, full.Stats.States)
					}
					t.Logf("%s: %d states with symmetry, %d without", full.Verdict, sym.Stats.States, full.Stats.States)
				})
			}
		}
	}
}

// TestBrokenKeyIsCaught: a key that leaves out the interpreter's state
// (the registries, the locks, the frames' locals) merges states whose
// futures differ, and the comparison with the full key catches it: some
// variant's verdict changes. It is what TestSymmetryChangesNoVerdict
// would say of a symmetry that merged unlike states.
func TestBrokenKeyIsCaught(t *testing.T) {
	changed := 0
	for _, name := range sourceVariants {
		p := load(t, pyvm.V312, "../testdata/python/"+name+".py", symmetryShapes[0], model.GIL)
		good := sched.States{}.Run(source.New(p), sched.Limits{})
		source.BreakKey(p)
		bad := sched.States{}.Run(source.New(p), sched.Limits{})
		if good.Verdict != bad.Verdict || kindOf(good) != kindOf(bad) {
			changed++
		}
	}
	require.Positive(t, changed, "no verdict changed with the interpreter's state out of the key")
}

// sourceVariants are the testdata/python files pyvm loads whose uses of
// cuda this package resolves.
var sourceVariants = []string{"naive", "global_lock", "refcount_unregistered", "refcount_del", "merged"}

// ownFixes are swapcheck's own fixes' files, which run with kernel.py
// patched (source.Options.ThreadContext).
var ownFixes = []string{"merged_fix", "proposed"}

func kindOf(r sched.Result) string {
	if r.Failure == nil {
		return ""
	}
	return r.Failure.Kind
}

func shapeName(sh scenario.Shape) string {
	name := fmt.Sprintf("t%d-b%d-c%d-m%d-n%d-nest%d", sh.Threads, sh.Blocks, sh.Calls, sh.Modules, sh.Names, sh.Nest)
	if sh.Branch {
		name += "-branch"
	}
	if sh.Hosts > 1 {
		name += fmt.Sprintf("-hosts%d", sh.Hosts)
	}
	if sh.Syncthreads {
		name += "-syncthreads"
	}
	if sh.HostCalls {
		name += "-host-calls"
	}
	return name
}
