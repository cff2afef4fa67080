package scenario_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// switchesOnKinds are the only files of the module that may switch on a
// statement's kind: the language's parser and printer and what it says of
// a statement in Python (here), and model's compilation of a statement
// into its row of the statement table. Anywhere else, a new statement
// kind would have to be taught to a switch nobody lists (docs/contributing.md,
// "Adding a statement").
var switchesOnKinds = map[string]bool{
	"scenario/scenario.go": true,
	"scenario/parse.go":    true,
	"scenario/python.go":   true,
	"scenario/memory.go":   true, // the shared-state statements' parse and checks
	"model/program.go":     true,
	"model/stmts.go":       true,
	"source/program.go":    true, // -source's compilation of a statement, which refuses the kinds it does not run
}

var caseOnKind = regexp.MustCompile(`\bcase\s+(scenario\.)?Op[A-Z]`)

// TestOnlyTheTableSwitchesOnStatementKinds: no other file of the module
// has a case on a statement kind.
func TestOnlyTheTableSwitchesOnStatementKinds(t *testing.T) {
	root := ".."
	var offenders []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// pyvm's and pysource's Op constants are CPython's opcodes, not
		// statement kinds.
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "pyvm" || d.Name() == "pysource" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if switchesOnKinds[rel] {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if caseOnKind.MatchString(line) {
				offenders = append(offenders, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, offenders, "a switch on statement kinds outside the statement table and the parser")
}
