package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// TestSourceOutAndReplay: -source -out DIR writes trace.txt (stdout's
// text) and schedule.txt; -replay of that schedule prints the same trace
// again, and refuses, in one line, a file that changed since, a file
// that is gone, a schedule of a run without a violation, and the outputs
// it does not write for a -source schedule yet.
func TestSourceOutAndReplay(t *testing.T) {
	pythonOnly(t, "3.11")
	repoRoot(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "kernelapi.py")
	b, err := os.ReadFile("testdata/python/naive.py")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o644))
	out := filepath.Join(tmp, "out")

	r := explore(t, "-source", file, "-python", "3.11", "-out", out, "-calls", "2")
	require.Equal(t, cli.ExitViolation, r.code, "stderr: %s", r.stderr)
	trace, err := os.ReadFile(filepath.Join(out, "trace.txt"))
	require.NoError(t, err)
	require.Equal(t, r.stdout, string(trace))
	sched, err := os.ReadFile(filepath.Join(out, "schedule.txt"))
	require.NoError(t, err)
	require.Contains(t, string(sched), "source "+file+":swapped_cuda_module\n")
	require.Contains(t, string(sched), "python 3.11\n")

	// a second run into the same directory asks for -force
	again := explore(t, "-source", file, "-python", "3.11", "-out", out)
	requireUsageError(t, again)
	require.Contains(t, again.stderr, "pass -force to overwrite")

	rep := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	require.Equal(t, cli.ExitViolation, rep.code, "stderr: %s", rep.stderr)
	// the same trace: the search's output but for how it was found
	// (shrinking) and the command that runs it again, blank lines aside
	strip := func(s string) string {
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if line != "" && !strings.HasPrefix(line, "shrunk:") && !strings.HasPrefix(line, "rerun:") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	require.Equal(t, strip(r.stdout), strip(rep.stdout))
	require.Contains(t, rep.stdout, "rerun: go run ./cmd/explore -replay "+filepath.Join(out, "schedule.txt"))

	// the replay's own -out
	out2 := filepath.Join(tmp, "out2")
	rep2 := explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-out", out2)
	require.Equal(t, cli.ExitViolation, rep2.code, "stderr: %s", rep2.stderr)
	sched2, err := os.ReadFile(filepath.Join(out2, "schedule.txt"))
	require.NoError(t, err)
	require.Equal(t, string(sched), string(sched2))

	for _, f := range []string{"-json", "-report=md", "-emit-python=" + filepath.Join(tmp, "r.py")} {
		bad := explore(t, "-replay", filepath.Join(out, "schedule.txt"), f)
		requireUsageError(t, bad)
		require.Contains(t, bad.stderr, "is not written for a -source schedule yet")
	}

	// a verified run's schedule has no steps
	ok := filepath.Join(tmp, "ok")
	v := explore(t, "-source", "testdata/python/merged.py", "-python", "3.11", "-out", ok)
	require.Equal(t, cli.ExitOK, v.code, "stderr: %s", v.stderr)
	none := explore(t, "-replay", filepath.Join(ok, "schedule.txt"))
	requireUsageError(t, none)
	require.Contains(t, none.stderr, "nothing to replay")

	// the file changed, then is gone
	require.NoError(t, os.WriteFile(file, append(b, []byte("\n# edited\n")...), 0o644))
	changed := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	requireUsageError(t, changed)
	require.Contains(t, changed.stderr, file+" changed since the schedule was written")
	require.NoError(t, os.Remove(file))
	gone := explore(t, "-replay", filepath.Join(out, "schedule.txt"))
	requireUsageError(t, gone)
	require.Contains(t, gone.stderr, "no such file")
}
