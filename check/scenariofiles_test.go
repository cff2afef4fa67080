package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
)

// scenarioFiles parses every scenario file of testdata/scenarios, by its
// base name.
func scenarioFiles(t *testing.T) map[string]*model.Scenario {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	scenarios := map[string]*model.Scenario{}
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc, err := model.Parse(f)
		f.Close()
		require.NoError(t, err, name)
		scenarios[filepath.Base(name)] = sc
	}
	return scenarios
}
