package source_test

import (
	"strings"
	"testing"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// The benchmarks below put -source beside the listing on the same
// worlds: BenchmarkVerdict/<variant>/<shape>/listing is check's
// exhaustive search of the hand-written listing (strategy states: a
// visited set, symmetry, no partial-order reduction), .../listing-por
// the same with persistent sets (strategy por, one worker), and
// .../listing-auto explore -protocol's default on one worker (por, then
// for a violation a bounded search for fewer preemptions, as
// source.Search makes one too),
// .../source the same variant's testdata/python file compiled by CPython
// 3.12 and run by pyvm, every instruction a step, .../transactions the
// same as explore -source searches it (source.Search: transactions,
// and persistent sets of them with one host). docs/source.md has the
// table (ratios) and the command.

var benchShapes = map[string]scenario.Shape{
	"threads2":        {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	"threads3":        {Threads: 3, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
	"calls2-modules2": {Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1},
	"nest1-names2":    {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 2, Nest: 1},
	"threads4":        {Threads: 4, Blocks: 1, Calls: 1, Modules: 1, Names: 1},
}

func BenchmarkVerdict(b *testing.B) {
	for _, name := range sourceVariants {
		for _, shape := range []string{"threads2", "threads3", "calls2-modules2", "nest1-names2", "threads4"} {
			sh := benchShapes[shape]
			sc, err := sh.Build()
			if err != nil {
				b.Fatal(err)
			}
			for _, run := range [][2]string{{"listing", check.StrategyStates}, {"listing-por", check.StrategyPOR}, {"listing-auto", check.StrategyAuto}} {
				sub, strategy := run[0], run[1]
				b.Run(name+"/"+shape+"/"+sub, func(b *testing.B) {
					p, err := check.Lookup(strings.ReplaceAll(name, "_", "-"))
					if err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: strategy, Workers: 1})
						if err != nil {
							b.Fatal(err)
						}
						if rep.Result.Verdict == sched.Incomplete {
							b.Fatal("incomplete")
						}
					}
				})
			}
			b.Run(name+"/"+shape+"/source", func(b *testing.B) {
				p := load(b, pyvm.V312, "../testdata/python/"+name+".py", sh, model.GIL)
				for b.Loop() {
					if r := (sched.States{}).Run(source.New(p), sched.Limits{}); r.Verdict == sched.Incomplete {
						b.Fatal("incomplete")
					}
				}
			})
			b.Run(name+"/"+shape+"/transactions", func(b *testing.B) {
				p := load(b, pyvm.V312, "../testdata/python/"+name+".py", sh, model.GIL)
				for b.Loop() {
					if r, _ := source.Search(p, sched.Limits{}, nil); r.Verdict == sched.Incomplete {
						b.Fatal("incomplete")
					}
				}
			})
		}
	}
}
