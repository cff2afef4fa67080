package bugreport

import (
	"fmt"
	"path"
	"strings"

	"swapcheck/check"
)

// found is the report's one account of where its trace came from: a
// search (and which), swapcheck's corpus (no search ran), or a replay of
// a saved schedule (no search ran in the run that wrote the report).
func found(t *check.Trace, r *check.Report) string {
	checker := fmt.Sprintf("swapcheck's model checker (explore %s, atomicity `%s`: %s)", t.Version, t.Atomicity, r.Config.Atomicity.Doc())
	switch {
	case t.Strategy == "replay":
		return checker + " replayed this schedule from a saved trace (`explore -replay`): no search ran in the run that wrote this report."
	case t.Corpus != "":
		return fmt.Sprintf("%s took this schedule from its corpus of known counterexamples (`%s`): replayed on this scenario before any search, it ended in this violation, so no search ran.",
			checker, path.Base(t.Corpus))
	}
	return fmt.Sprintf("%s found it by searching the interleavings of the threads (strategy `%s`).", checker, t.Strategy)
}

// portable reports whether cmd names no file of the reporter's machine
// by an absolute path (a report prints only commands a reader can run).
func portable(cmd string) bool {
	for _, w := range strings.Fields(cmd) {
		w = strings.Trim(w, `'"`)
		if strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || strings.Contains(w, "..") {
			return false
		}
	}
	return true
}

// localRoots are the directories a path of the reporter's machine starts
// with; /usr/bin/python3, Debian's interpreter in a command, is the one
// path a report names.
var localRoots = []string{"/home/", "/tmp/", "/work/", "/root/", "/usr/", "/var/", "/Users/"}

// LocalPaths returns what text names under the directories of a
// machine's files (the words that start there), leaving out
// /usr/bin/python3: a report must name none (tests check every report).
func LocalPaths(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\n' || r == '\t' || r == '`' || r == '"' || r == '\'' || r == '(' || r == ')' || r == '='
	}) {
		for _, root := range localRoots {
			if i := strings.Index(w, root); i >= 0 && (i == 0 || w[i-1] == ':') && !strings.HasPrefix(w[i:], "/usr/bin/python3") {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
