// Package swapcheck holds, embedded, the Python renditions of the
// variants (testdata/python/*.py) for the packages that write them out
// (pyreplay): go:embed reaches only files below the embedding package's
// directory, and testdata/ sits at the module's root.
package swapcheck

import "embed"

//go:embed testdata/python/*.py
var pythonFiles embed.FS

// PythonSource returns testdata/python/<file> (file as a Protocol's
// Source names it, "naive.py").
func PythonSource(file string) (string, error) {
	b, err := pythonFiles.ReadFile("testdata/python/" + file)
	return string(b), err
}
