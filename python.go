// Package swapcheck holds, embedded, the Python renditions of the
// variants (testdata/python/*.py) for the packages that write them out
// (pyreplay): go:embed reaches only files below the embedding package's
// directory, and testdata/ sits at the module's root.
package swapcheck

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed testdata/python/*.py
var pythonFiles embed.FS

// PythonSource returns testdata/python/<file> (file as a Protocol's
// Source names it, "naive.py").
func PythonSource(file string) (string, error) {
	b, err := pythonFiles.ReadFile("testdata/python/" + file)
	return string(b), err
}

// upstreamPin is the pin a variant's Python file carries in its first line
// (model/source_test.go checks it): numba-cuda's commit and the lines of
// its kernelapi.py the file's function is, from its "@contextmanager" line.
var upstreamPin = regexp.MustCompile(`numba-cuda ([0-9a-f]{7,40}) kernelapi\.py:([0-9]+)-[0-9]+ sha256 [0-9a-f]{64}`)

// Upstream says where testdata/python/<file>'s function is in numba-cuda:
// the commit, and the offset that turns a line N of the file into that
// commit's kernelapi.py line N+offset. ok is false for a file that is not
// numba-cuda's code (swapcheck's own fix).
func Upstream(file string) (commit string, offset int, ok bool) {
	src, err := PythonSource(file)
	if err != nil {
		return "", 0, false
	}
	header, _, _ := strings.Cut(src, "\n")
	m := upstreamPin.FindStringSubmatch(header)
	if m == nil {
		return "", 0, false
	}
	first, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	for i, line := range strings.Split(src, "\n") {
		if line == "@contextmanager" {
			return m[1], first - (i + 1), true
		}
	}
	return "", 0, false
}

//go:embed testdata/merged-fix/kernel-edits.json
var kernelEdits []byte

// MergedFixKernel returns kernel (a kernel.py of numba-cuda's simulator,
// or the stand-in's transcription of it) with merged-fix's patch applied:
// the edits of testdata/merged-fix/kernel-edits.json, which
// scripts/merged-fix-patch.py applies to numba-cuda's own file. Each edit
// must match exactly once, or it is an error naming the edit.
func MergedFixKernel(kernel string) (string, error) {
	var f struct {
		Edits []struct{ Old, New string }
	}
	if err := json.Unmarshal(kernelEdits, &f); err != nil {
		return "", fmt.Errorf("testdata/merged-fix/kernel-edits.json: %v", err)
	}
	for _, e := range f.Edits {
		if n := strings.Count(kernel, e.Old); n != 1 {
			first, _, _ := strings.Cut(e.Old, "\n")
			return "", fmt.Errorf("merged-fix's kernel.py edit %q matches %d times, not once", first, n)
		}
		kernel = strings.Replace(kernel, e.Old, e.New, 1)
	}
	return kernel, nil
}
