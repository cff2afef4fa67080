package pyreplay

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"swapcheck"
	"swapcheck/model"
)

// The stand-in numba package (standin/numba): what --target rendition
// imports as numba. Its kernel.py transcribes numba-cuda's launch code
// (kernel_proposed.py: patched for proposed, as docs/proposed_fix.md
// shows; for merged-fix, kernel.py with merged-fix's patch applied), and
// its kernelapi.py imports the variant's rendition from a
// module of its own, so a replay on it finds its anchors, registries and
// errors as on numba's own simulator. Plain Python: it runs on any
// CPython 3.11+ without numpy.
//
//go:embed all:standin
var standinFS embed.FS

// standin returns the stand-in's files (paths under the package's
// parent directory) with variant's rendition installed: src is its
// Python, source its file name (testdata/python/<source>).
func standin(pr *model.Protocol, src string) []pyFile {
	mod := strings.TrimSuffix(pr.Source, ".py")
	var files []pyFile
	err := fs.WalkDir(standinFS, "standin", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "__pycache__") {
			return err
		}
		b, err := standinFS.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "standin/")
		switch path.Base(name) {
		case "kernel.py", "kernel_proposed.py":
			if (path.Base(name) == "kernel_proposed.py") != pr.Dispatches {
				return nil
			}
			name = path.Join(path.Dir(name), "kernel.py")
			if pr.ThreadContext && !pr.Dispatches {
				// merged-fix: numba-cuda's kernel.py with its patch (the
				// thread's own kernel context), as scripts/merged-fix-patch.py
				// makes it
				k, err := swapcheck.MergedFixKernel(string(b))
				if err != nil {
					return err
				}
				b = []byte(k)
			}
		case "kernelapi.py":
			b = []byte(strings.Replace(string(b), "from .swap_variant import", "from ."+mod+" import", 1))
		}
		files = append(files, pyFile{Name: name, Source: string(b)})
		return nil
	})
	if err != nil {
		panic("pyreplay: the embedded stand-in cannot be made: " + err.Error())
	}
	return append(files, pyFile{Name: "numba/cuda/simulator/" + pr.Source, Source: src})
}

// Standin returns the files of the stand-in numba package with variant
// pr's rendition installed, by path under the directory to put first on
// sys.path (numba/__init__.py, ...): a numba to run a replay's or an
// emitted test's code on where no numba is installed.
func Standin(pr *model.Protocol) ([]File, error) {
	src, err := swapcheck.PythonSource(pr.Source)
	if err != nil {
		return nil, fmt.Errorf("no Python rendition for %s: %v", pr.Name, err)
	}
	var out []File
	for _, f := range standin(pr, src) {
		out = append(out, File{Name: f.Name, Text: f.Source})
	}
	return out, nil
}
