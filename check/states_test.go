package check_test

import (
	"fmt"
	"testing"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// BenchmarkStatesMerged is the exhaustive search of merged, one call per
// thread under the GIL, by DFS (3 to 5 threads) and by States, keyed up to
// permuting the threads (3 to 8); it reports the states stored, the steps
// that reached a stored one, and the visited set's memory.
func BenchmarkStatesMerged(b *testing.B) {
	for n := 3; n <= 8; n++ {
		for _, strat := range []sched.Strategy{sched.DFS{}, sched.States{}} {
			if strat.Name() == "dfs" && n > 5 {
				continue
			}
			b.Run(fmt.Sprintf("threads=%d/%s", n, strat.Name()), func(b *testing.B) {
				prog := mergedProgram(b, n)
				var res sched.Result
				for b.Loop() {
					res = strat.Run(check.NewSystem(prog), sched.Limits{})
					if res.Verdict != sched.Verified {
						b.Fatalf("want verified, got %s", res.Verdict)
					}
				}
				b.ReportMetric(float64(res.Stats.States), "states")
				b.ReportMetric(float64(res.Stats.Matched), "matched")
				b.ReportMetric(float64(res.Stats.MemoryBytes)/(1<<20), "visited-MB")
			})
		}
	}
}

func mergedProgram(tb testing.TB, threads int) *model.Program {
	tb.Helper()
	p, err := model.NewProgram(mergedScenario(tb, threads), swapMerged(tb), model.GIL)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// mergedScenario is threads threads of one block, one call each, one
// module with one name: the shape issue 3 measures merged on.
func mergedScenario(tb testing.TB, threads int) *scenario.Scenario {
	tb.Helper()
	sc, err := scenario.Shape{Threads: threads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

func swapMerged(tb testing.TB) *model.Protocol { return protocol(tb, "merged") }

// protocol is the protocol of that name.
func protocol(tb testing.TB, name string) *model.Protocol {
	p, err := check.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
