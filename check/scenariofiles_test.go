package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"swapcheck/scenario"

	"github.com/stretchr/testify/require"
)

// scenarioFiles parses every scenario file of testdata/scenarios, by its
// base name.
func scenarioFiles(t *testing.T) map[string]*scenario.Scenario {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	scenarios := map[string]*scenario.Scenario{}
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc, err := scenario.Parse(f)
		f.Close()
		require.NoError(t, err, name)
		scenarios[filepath.Base(name)] = sc
	}
	return scenarios
}
