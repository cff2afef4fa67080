package model_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
)

// TestREADMEBounds checks that testdata/scenarios/README.md states the
// parser's bounds: its list is written from the Max constants, and this
// test fails when one of them changes without the README.
func TestREADMEBounds(t *testing.T) {
	readme, err := os.ReadFile("../testdata/scenarios/README.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		fmt.Sprintf("1..%d threads per block for a search (1..%d with `-backend goroutines`)", model.MaxThreads, model.MaxStressThreads),
		fmt.Sprintf("1..%d blocks per launch", model.MaxBlocks),
		fmt.Sprintf("1..%d launches", model.MaxLaunches),
		fmt.Sprintf("1..%d hosts", model.MaxHosts),
		fmt.Sprintf("1..%d faults per execution (`max-faults`)", model.MaxFaultsBound),
		fmt.Sprintf("1..%d modules (the kernel's and up to %d more; `-modules` counts the %d)", model.MaxModules, model.MaxModules-1, model.MaxModules-1),
		fmt.Sprintf("1..%d names per module bound to cuda", model.MaxNames),
		fmt.Sprintf("at most %d globals per module", model.MaxGlobals),
		fmt.Sprintf("at most %d device functions", model.MaxFunctions),
		fmt.Sprintf("at most %d statements per body", model.MaxStmts),
		fmt.Sprintf("lines of at most %d bytes", model.MaxLineBytes),
		fmt.Sprintf("nest at most %d deep", model.MaxNest+1),
		fmt.Sprintf("repeat counts 1..%d", model.MaxRepeat),
		fmt.Sprintf("branches and repeats nested at most %d deep", model.MaxDepth),
		fmt.Sprintf("at most %d statements in one run of a body", model.MaxRun),
	} {
		require.Contains(t, text, want, "testdata/scenarios/README.md no longer states a bound of the parser")
	}
}

// names is n distinct names bound to cuda: cuda, cu2, cu3, ...
func names(n int) string {
	out := []string{"cuda"}
	for i := 2; i <= n; i++ {
		out = append(out, fmt.Sprintf("cu%d", i))
	}
	return strings.Join(out, " ")
}

// TestParseBounds checks the parser at each bound the README states: the
// bound itself is accepted, one more is refused.
func TestParseBounds(t *testing.T) {
	scenario := func(threads, nNames int) string {
		return fmt.Sprintf("threads %d\nmodule kernels %s\nkernel: use cuda.threadIdx\n", threads, names(nNames))
	}
	tests := []struct {
		name       string
		text       string
		maxThreads int
		err        string // "" when it parses
	}{
		{"threads at the bound", scenario(model.MaxThreads, 1), model.MaxThreads, ""},
		{"threads over the bound", scenario(model.MaxThreads+1, 1), model.MaxThreads, fmt.Sprintf("threads must be 1..%d", model.MaxThreads)},
		{"goroutine backend's threads at its bound", scenario(model.MaxStressThreads, 1), model.MaxStressThreads, ""},
		{"goroutine backend's threads over its bound", scenario(model.MaxStressThreads+1, 1), model.MaxStressThreads, fmt.Sprintf("threads must be 1..%d", model.MaxStressThreads)},
		{"names at the bound", scenario(2, model.MaxNames), model.MaxThreads, ""},
		{"names over the bound", scenario(2, model.MaxNames+1), model.MaxThreads, fmt.Sprintf("at most %d", model.MaxNames)},
		{"a line at the bound", scenario(2, 1) + "#" + strings.Repeat("x", model.MaxLineBytes-1) + "\n", model.MaxThreads, ""},
		{"a line over the bound", scenario(2, 1) + "#" + strings.Repeat("x", model.MaxLineBytes) + "\n", model.MaxThreads, fmt.Sprintf("line 4: longer than %d bytes", model.MaxLineBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.ParseUpTo(strings.NewReader(tt.text), tt.maxThreads)
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.err)
		})
	}
	t.Run("Parse is ParseUpTo MaxThreads", func(t *testing.T) {
		_, err := model.Parse(strings.NewReader(scenario(model.MaxThreads+1, 1)))
		require.ErrorContains(t, err, fmt.Sprintf("threads must be 1..%d", model.MaxThreads))
	})
}

// TestParseQuotesControlCharacters: a name from the file that is not a
// Python name is quoted in the message, so no control character reaches
// the user's terminal.
func TestParseQuotesControlCharacters(t *testing.T) {
	tests := []struct{ name, text string }{
		{"unknown module", "module kernels cuda\ndevice f in no\x1b[2J: use cuda.local\nkernel: call f\n"},
		{"module defined twice", "module m\x07 cuda\nmodule m\x07 cuda\nkernel: use cuda.x\n"},
		{"unknown function", "module kernels cuda\nkernel: call g\x01\n"},
		{"unknown name", "module kernels cuda\nkernel: use cu\x01.local\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.Parse(strings.NewReader(tt.text))
			require.Error(t, err)
			require.False(t, strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }), "a raw control character in %q", err.Error())
		})
	}
}
