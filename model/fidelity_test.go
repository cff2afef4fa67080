package model_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cloneVariable names a clone of NVIDIA/numba-cuda (bare or not) for the
// tests that read upstream's own files; they skip when it is unset, and
// CI fetches nothing.
const cloneVariable = "SWAPCHECK_NUMBA_CUDA_REPO"

// TestFidelityScript runs scripts/fidelity.sh against the clone that
// SWAPCHECK_NUMBA_CUDA_REPO names, as docs/contributing.md tells a
// contributor to: it must exit 0 and print one line per
// testdata/python file, "same" for a file of numba-cuda's and "ours" for
// swapcheck's own fix.
func TestFidelityScript(t *testing.T) {
	repo := os.Getenv(cloneVariable)
	if repo == "" {
		t.Skipf("set %s to a clone of NVIDIA/numba-cuda to diff testdata/python with it", cloneVariable)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "python", "*.py"))
	require.NoError(t, err)
	out, err := exec.Command("bash", filepath.Join("..", "scripts", "fidelity.sh"), "--repo", repo).CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(files), "%s", out)
	for i, f := range files {
		fields := strings.Fields(lines[i])
		require.Len(t, fields, 5, lines[i])
		require.Equal(t, filepath.Base(f), fields[0])
		require.Contains(t, []string{"same", "ours"}, fields[3], lines[i])
	}
}
