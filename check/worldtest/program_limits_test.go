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
