package stress

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The comparison's copy of the aborted-launch scenario is the file's,
// comments aside.
func TestAbortedLaunchIsTheFile(t *testing.T) {
	b, err := os.ReadFile("../testdata/scenarios/aborted-launch.txt")
	require.NoError(t, err)
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	require.Equal(t, strings.Join(lines, "\n")+"\n", abortedLaunch)
}
