package scenario_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"swapcheck/scenario"

	"github.com/stretchr/testify/require"
)

// TestREADMEBounds checks that testdata/scenarios/README.md states the
// parser's bounds: its list is written from the Max constants, and this
// test fails when one of them changes without the README.
func TestREADMEBounds(t *testing.T) {
	readme, err := os.ReadFile("../testdata/scenarios/README.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, want := range []string{
		fmt.Sprintf("1..%d threads per block (1..%d for a `-source` search)", scenario.MaxThreads, scenario.MaxSourceThreads),
		fmt.Sprintf("1..%d blocks per launch", scenario.MaxBlocks),
		fmt.Sprintf("1..%d launches", scenario.MaxLaunches),
		fmt.Sprintf("1..%d hosts", scenario.MaxHosts),
		fmt.Sprintf("1..%d faults per execution (`max-faults`)", scenario.MaxFaultsBound),
		fmt.Sprintf("1..%d modules (the kernel's and up to %d more; `-modules` counts the %d)", scenario.MaxModules, scenario.MaxModules-1, scenario.MaxModules-1),
		fmt.Sprintf("1..%d names per module bound to cuda", scenario.MaxNames),
		fmt.Sprintf("at most %d globals per module", scenario.MaxGlobals),
		fmt.Sprintf("at most %d other globals per module (`NAME=VALUE`)", scenario.MaxOthers),
		fmt.Sprintf("at most %d device functions", scenario.MaxFunctions),
		fmt.Sprintf("at most %d statements per body", scenario.MaxStmts),
		fmt.Sprintf("lines of at most %d bytes", scenario.MaxLineBytes),
		fmt.Sprintf("nest at most %d deep", scenario.MaxNest+1),
		fmt.Sprintf("repeat counts 1..%d", scenario.MaxRepeat),
		fmt.Sprintf("branches and repeats nested at most %d deep", scenario.MaxDepth),
		fmt.Sprintf("at most %d statements in one run of a body", scenario.MaxRun),
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
	fileText := func(threads, nNames int) string {
		return fmt.Sprintf("threads %d\nmodule kernels %s\nkernel: use cuda.threadIdx\n", threads, names(nNames))
	}
	tests := []struct {
		name       string
		text       string
		maxThreads int
		err        string // "" when it parses
	}{
		{"threads at the bound", fileText(scenario.MaxThreads, 1), scenario.MaxThreads, ""},
		{"threads over the bound", fileText(scenario.MaxThreads+1, 1), scenario.MaxThreads, fmt.Sprintf("threads must be 1..%d", scenario.MaxThreads)},
		{"goroutine backend's threads at its bound", fileText(scenario.MaxStressThreads, 1), scenario.MaxStressThreads, ""},
		{"goroutine backend's threads over its bound", fileText(scenario.MaxStressThreads+1, 1), scenario.MaxStressThreads, fmt.Sprintf("threads must be 1..%d", scenario.MaxStressThreads)},
		{"names at the bound", fileText(2, scenario.MaxNames), scenario.MaxThreads, ""},
		{"names over the bound", fileText(2, scenario.MaxNames+1), scenario.MaxThreads, fmt.Sprintf("at most %d", scenario.MaxNames)},
		{"a line at the bound", fileText(2, 1) + "#" + strings.Repeat("x", scenario.MaxLineBytes-1) + "\n", scenario.MaxThreads, ""},
		{"a line over the bound", fileText(2, 1) + "#" + strings.Repeat("x", scenario.MaxLineBytes) + "\n", scenario.MaxThreads, fmt.Sprintf("line 4: longer than %d bytes", scenario.MaxLineBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.ParseUpTo(strings.NewReader(tt.text), tt.maxThreads)
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.err)
		})
	}
	t.Run("Parse is ParseUpTo MaxThreads", func(t *testing.T) {
		_, err := scenario.Parse(strings.NewReader(fileText(scenario.MaxThreads+1, 1)))
		require.ErrorContains(t, err, fmt.Sprintf("threads must be 1..%d", scenario.MaxThreads))
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
			_, err := scenario.Parse(strings.NewReader(tt.text))
			require.Error(t, err)
			require.False(t, strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }), "a raw control character in %q", err.Error())
		})
	}
}

// TestREADMEExamplesParse: every example of testdata/scenarios/README.md
// (the fenced blocks after "## Examples") is a scenario the parser takes.
func TestREADMEExamplesParse(t *testing.T) {
	readme, err := os.ReadFile("../testdata/scenarios/README.md")
	require.NoError(t, err)
	_, examples, ok := strings.Cut(string(readme), "## Examples")
	require.True(t, ok, "no Examples section")
	examples, _, _ = strings.Cut(examples, "\n## ")
	blocks := strings.Split(examples, "```")
	n := 0
	for i := 1; i < len(blocks); i += 2 {
		_, err := scenario.Parse(strings.NewReader(blocks[i]))
		require.NoError(t, err, "example %d:\n%s", n+1, blocks[i])
		n++
	}
	require.GreaterOrEqual(t, n, 4, "the examples were not found")
}
