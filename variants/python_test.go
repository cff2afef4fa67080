package variants_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/variants"
)

// protocols are the listings the tests check: the registry's, every one.
var protocols = variants.Protocols()

const python3Missing = "python3 not found: install it (for example apt-get install -y python3)"

// python3 returns the path of python3, or skips (fails, when
// SWAPCHECK_REQUIRE_PYTHON is set) the test.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("SWAPCHECK_REQUIRE_PYTHON") != "" {
			t.Fatal(python3Missing)
		}
		t.Skip(python3Missing)
	}
	return p
}

// runPython runs python3 with args and returns its stdout; stderr is shown on
// failure.
func runPython(t *testing.T, args ...string) []byte {
	t.Helper()
	py := python3(t)
	cmd := exec.Command(py, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	require.NoError(t, err, "python3 %s\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	return stdout.Bytes()
}
