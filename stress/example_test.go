package stress_test

import (
	"fmt"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/stress"
)

// Stress naive on 64 goroutines until it fails: the seed's race, every
// time, and the simulator replays the launch's steps to the same failure.
// How long it takes varies from run to run (see WriteReport for a report).
func Example() {
	sh := scenario.DefaultShape
	sh.Threads = 64
	sc, err := sh.BuildUpTo(scenario.MaxStressThreads)
	if err != nil {
		panic(err)
	}
	p, err := check.Lookup("naive")
	if err != nil {
		panic(err)
	}
	res, err := stress.Run(stress.Config{Protocol: p, Scenario: sc, Atomicity: model.GIL,
		Duration: time.Minute, Seed: 1, Gosched: stress.DefaultGosched})
	if err != nil {
		panic(err)
	}
	v := res.Violation
	fmt.Println(res.Verdict, v.Failure.Kind)
	fmt.Println("replays:", v.Reproduced)
	// Output:
	// violation use-saw-real
	// replays: true
}
