package swapcheck_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layer ranks the packages of the program: a package imports only
// packages of lower layers (cmd -> stress -> check -> swap/naive -> model
// -> sched, with the scenario language, the embedded Python files and the
// memory probe at the bottom). A package missing here fails the test, so
// a new one is placed on purpose.
var layer = map[string]int{
	"swapcheck":                       0,
	"swapcheck/sched":                 0,
	"swapcheck/scenario":              0,
	"swapcheck/check/memory":          0,
	"swapcheck/internal/testenv":      0,
	"swapcheck/internal/switchgolden": 0,
	"swapcheck/pyvm":                  0,
	"swapcheck/pysource":              1,
	"swapcheck/model":                 1,
	"swapcheck/swap":                  2,
	"swapcheck/naive":                 2,
	"swapcheck/source":                2,
	"swapcheck/internal/pyfind":       2,
	"swapcheck/variants":              3,
	"swapcheck/check":                 4,
	"swapcheck/check/worldtest":       4,
	"swapcheck/pyreplay":              5,
	"swapcheck/stress":                5,
	"swapcheck/bugreport":             6,
	"swapcheck/cmd/explore/cli":       7,
	"swapcheck/cmd/explore":           8,
}

// testOnly are imported by tests only.
var testOnly = []string{"swapcheck/internal/testenv", "swapcheck/internal/switchgolden", "swapcheck/internal/pyfind"}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the packages")
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).Output()
	require.NoError(t, err, "go list %v", args)
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestImportsFlowOneWay: every package imports only packages below it,
// and the test helpers only from tests.
func TestImportsFlowOneWay(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		l, ok := layer[pkg]
		require.True(t, ok, "package %s has no layer in layers_test.go: place it", pkg)
		for _, imp := range imports {
			if !strings.HasPrefix(imp, "swapcheck") {
				continue
			}
			require.NotContains(t, testOnly, imp, "%s imports %s, which only tests may", pkg, imp)
			require.Less(t, layer[imp], l, "%s (layer %d) imports %s (layer %d): imports flow down only", pkg, l, imp, layer[imp])
		}
	}
}

// TestModelTestsNeedNothingAbove: model's own tests build without the
// protocols and the searches (those that run them are check/worldtest's).
func TestModelTestsNeedNothingAbove(t *testing.T) {
	for _, dep := range goList(t, "-test", "-deps", "./model") {
		if !strings.HasPrefix(dep, "swapcheck") {
			continue
		}
		dep, _, _ = strings.Cut(dep, " ") // "swapcheck/model [swapcheck/model.test]"
		allowed := []string{"swapcheck/model", "swapcheck/model_test", "swapcheck/model.test", "swapcheck/sched", "swapcheck/scenario"}
		require.True(t, slices.Contains(allowed, dep) || slices.Contains(testOnly, dep),
			"go list -test -deps ./model lists %s: a test of model that needs it belongs in check/worldtest", dep)
	}
}
