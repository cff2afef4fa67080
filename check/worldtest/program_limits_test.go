package worldtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/swap"
)

// A valid scenario whose call tree is exponential in its depth (64 calls
// at each of 9 levels) is rejected at once, not after counting every call
// path (which would never end).
func TestNewProgramCallTree(t *testing.T) {
	var b strings.Builder
	b.WriteString("threads 1\nmodule kernels cuda\n")
	const levels = scenario.MaxNest + 1
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "module m%d cuda\n", i)
	}
	fmt.Fprintf(&b, "device f%d in m%d: use cuda.local\n", levels, levels)
	for i := levels - 1; i >= 1; i-- {
		fmt.Fprintf(&b, "device f%d in m%d: %s\n", i, i, strings.Repeat(fmt.Sprintf("call f%d; ", i+1), scenario.MaxStmts))
	}
	fmt.Fprintf(&b, "kernel: %s\n", strings.Repeat("call f1; ", scenario.MaxStmts))
	sc, err := scenario.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	_, err = model.NewProgram(sc, swap.Merged, model.GIL)
	require.ErrorContains(t, err, "device calls per thread")
}

// NewProgram takes CUDA's largest block, and refuses, in one line, a
// scenario whose threads in all overflow the slot a thread's number is
// kept in (a lock's owner): three hosts, each launching four times
// sixteen blocks of 1024 threads.
func TestNewProgramBoundsTheThreadsInAll(t *testing.T) {
	sc, err := scenario.Shape{Threads: scenario.MaxThreads, Blocks: 1, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	p, err := model.NewProgram(sc, swap.Merged, model.GIL)
	require.NoError(t, err)
	require.Equal(t, 1+scenario.MaxThreads, p.NumThreads())

	sc, err = scenario.Shape{Threads: scenario.MaxThreads, Blocks: scenario.MaxBlocks, Calls: 0, Modules: 1, Names: 1, Hosts: scenario.MaxHosts}.Build()
	require.NoError(t, err)
	sc.Launches = scenario.MaxLaunches
	require.NoError(t, sc.Validate())
	_, err = model.NewProgram(sc, swap.Merged, model.GIL)
	require.EqualError(t, err, "the scenario runs 196611 threads in all (hosts x (1 + launches x blocks x threads)); the model holds at most 32764")
}
