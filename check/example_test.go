package check_test

import (
	"fmt"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// Explore merged (numba-cuda 0.25.0) with two threads calling one device
// function once: the exhaustive search proves it.
func ExampleExplore() {
	p, err := check.Lookup("merged")
	if err != nil {
		panic(err)
	}
	sc, err := scenario.Shape{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	if err != nil {
		panic(err)
	}
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	if err != nil {
		panic(err)
	}
	st := rep.Result.Stats
	fmt.Println("verdict:", rep.Result.Verdict, "proved:", rep.Verified())
	fmt.Printf("%d executions, %d states, %d steps\n", st.Executions, st.States, st.Steps)
	fmt.Println("locks left:", rep.LocksLeft)
	// Output:
	// verdict: verified proved: true
	// 269 executions, 483 states, 746 steps
	// locks left: 2
}

// Explore naive, the original swap, with the same two threads: the search
// finds the seed's race and shortens it to the fewest steps.
func ExampleExplore_naive() {
	p, err := check.Lookup("naive")
	if err != nil {
		panic(err)
	}
	sc, err := scenario.DefaultShape.Build()
	if err != nil {
		panic(err)
	}
	rep, err := check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS})
	if err != nil {
		panic(err)
	}
	f := rep.Result.Failure
	fmt.Println("verdict:", rep.Result.Verdict)
	fmt.Println("kind:", f.Kind)
	fmt.Println(f.Message)
	fmt.Println("steps:", len(rep.Result.Schedule))
	// Output:
	// verdict: violation
	// kind: use-saw-real
	// T1: dev1.cuda is the real module, not fake#1: AttributeError: module 'numba.cuda' has no attribute 'local'
	// steps: 22
}
