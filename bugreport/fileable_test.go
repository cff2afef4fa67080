package bugreport_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck"
	"swapcheck/bugreport"
	"swapcheck/check"
)

// debianPython is the interpreter Debian's python3-numba installs numba
// for, the one the reports' commands name.
const debianPython = "/usr/bin/python3"

// TestGoldenReportsAreFileable: every golden report.md is one a
// maintainer files without editing. It names no path of the machine that
// wrote it; a report of numba-cuda's code names numba-cuda's commit and
// kernelapi.py lines, one of swapcheck's own code says it has none; and
// it carries a Python replay that runs (or says in one sentence why it
// has none): the test unpacks the inline replay.py, runs the command the
// report gives for Debian's numba 0.56.4 and checks that it reproduces
// the report's violation (exit status 1, "verdict: reproduced KIND").
// Where numba is not installed for /usr/bin/python3 it runs the
// stand-in target instead and says so, unless SWAPCHECK_REQUIRE_NUMBA=1.
func TestGoldenReportsAreFileable(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	require.NoError(t, err)
	require.Len(t, paths, len(reportCases), "a golden report.md without a case, or a case without one")
	python, numba := pythons(t)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			md := string(raw)
			require.Empty(t, bugreport.LocalPaths(md), "%s names a path of the machine that wrote it", path)

			tr := reportTrace(t, md)
			p, err := check.Lookup(tr.Protocol)
			require.NoError(t, err)
			if commit, _, ok := swapcheck.Upstream(p.Source); ok {
				require.Contains(t, md, "numba-cuda "+commit+"'s `numba_cuda/numba/cuda/simulator/kernelapi.py`", "the report does not name numba-cuda's file at its commit")
				require.Regexp(t, `\(kernelapi\.py:[0-9]+\)`, md, "no cell names numba-cuda's kernelapi.py line")
			} else {
				require.Contains(t, md, "swapcheck's own code", "a report of swapcheck's own code must say it has no numba-cuda line")
				require.NotRegexp(t, `\(kernelapi\.py:[0-9]+\)`, md)
			}

			if why := regexp.MustCompile(`There is no Python replay of this trace: [^\n]*\.\n`).FindString(md); why != "" {
				t.Logf("no replay: %s", why)
				return
			}
			block := regexp.MustCompile(`(?s)\n(/usr/bin/python3 - <<'EOF'\n.*?\nEOF\n)`).FindStringSubmatch(md)
			require.NotNil(t, block, "the report has neither the replay inline nor a sentence saying why not")
			dir := t.TempDir()
			unpack := exec.Command(python, "-")
			unpack.Dir, unpack.Stdin = dir, strings.NewReader(strings.TrimSuffix(strings.TrimPrefix(block[1], "/usr/bin/python3 - <<'EOF'\n"), "EOF\n"))
			out, err := unpack.CombinedOutput()
			require.NoError(t, err, "unpacking replay.py: %s", out)
			require.Contains(t, string(out), "replay.py: ")

			cmd := regexp.MustCompile(`(?m)^(/usr/bin/python3|python3) replay\.py( --target numba)?( --swap rendition)?$`).FindAllStringSubmatch(md, -1)
			require.NotEmpty(t, cmd, "the report gives no command that runs replay.py")
			args := []string{"replay.py"}
			switch last := cmd[len(cmd)-1]; {
			case last[2] == "":
				// the stand-in target: no numba runs this trace
			case numba:
				args = strings.Fields(last[0])[1:]
			default:
				t.Logf("numba is not installed for %s: running %s on the stand-in target, not %q", debianPython, python, last[0])
			}
			replay := exec.Command(python, args...)
			replay.Dir = dir
			out, err = replay.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s %s: %s", python, strings.Join(args, " "), out)
			require.Equal(t, 1, exit.ExitCode(), "%s %s did not reproduce the violation:\n%s", python, strings.Join(args, " "), out)
			require.Contains(t, string(out), "verdict: reproduced "+tr.Violation.Kind+"\n")
			if strings.Contains(md, "prints which array the thread got") {
				// the kernel's own print: two threads of a block, two arrays
				got := regexp.MustCompile(`(?m)^kernel: block 0 thread [0-9]+ got the shared array s at (0x[0-9a-f]+)$`).FindAllStringSubmatch(string(out), -1)
				require.Len(t, got, 2, "%s", out)
				require.NotEqual(t, got[0][1], got[1][1], "the threads printed one array")
			}
			if strings.Contains(md, "launch k passes k int32") {
				// the kernel's own print: a thread that ran after launch 2
				// began saw launch 1's dynamic shared memory
				require.Regexp(t, `(?s)launch 2 passes 2 int32 of dynamic shared memory\n.*: block 0 thread 0 sees 1 int32 of dynamic shared memory\n`, string(out))
			}
		})
	}
}

// reportTrace is the trace.json a report carries.
func reportTrace(t *testing.T, md string) *check.Trace {
	t.Helper()
	m := regexp.MustCompile("(?s)<summary>trace.json</summary>\n\n```json\n(.*?)\n```\n").FindStringSubmatch(md)
	require.NotNil(t, m, "the report carries no trace.json")
	var tr check.Trace
	require.NoError(t, json.Unmarshal([]byte(m[1]), &tr))
	require.NotNil(t, tr.Violation)
	return &tr
}

// pythons is the interpreter that runs the replays (Debian's, else
// python3 on PATH) and whether it imports numba; without numba the test
// fails when SWAPCHECK_REQUIRE_NUMBA=1.
func pythons(t *testing.T) (string, bool) {
	t.Helper()
	if _, err := os.Stat(debianPython); err == nil {
		if exec.Command(debianPython, "-c", "import numba").Run() == nil {
			return debianPython, true
		}
	}
	if os.Getenv("SWAPCHECK_REQUIRE_NUMBA") == "1" {
		t.Fatalf("SWAPCHECK_REQUIRE_NUMBA=1, but %s does not import numba (apt-get install python3-numba)", debianPython)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to run the reports' replays")
	}
	return python, false
}
