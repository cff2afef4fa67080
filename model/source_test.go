package model_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// own pins each of swapcheck's own variants (a fix the project proposes,
// not numba-cuda's code) to the SHA-256 of its whole file, so that the
// lines its listing and docs/proposed_fix.md cite cannot drift unseen. Its
// header must say it is not numba-cuda's code; a file is upstream or own,
// never both.
var own = map[string]string{
	"proposed.py":   "55a73dca3f9ac9632cc44de2fd00496bf9de3aa6405fe6f8393289a249f99810",
	"merged_fix.py": "988fb91b096095eeba30824632d4fed9124335599b7259aa2cbaeb6c82d6733a",
}

const ownHeader = "swapcheck's own fix, not numba-cuda's code"

// citation is the pin a variant's Python file carries in its first line:
// lines A to B of numba_cuda/numba/cuda/simulator/kernelapi.py at COMMIT,
// and the SHA-256 of those lines (each ending in a newline), as
// scripts/fidelity.sh --repo <clone of NVIDIA/numba-cuda> prints them.
// That script diffs the files against the repository; this test keeps
// them from drifting without it.
var citation = regexp.MustCompile(`numba-cuda ([0-9a-f]{7,40}) kernelapi\.py:([0-9]+)-([0-9]+) sha256 ([0-9a-f]{64})`)

// TestSourcesAreUpstream: every variant's Python file (each file of
// testdata/python: variants' TestEveryVariantHasItsPythonFile ties them to
// the registry) holds numba-cuda's swapped_cuda_module of its commit line
// for line (from "@contextmanager" to the end of the file), and its header
// cites that commit and those lines.
func TestSourcesAreUpstream(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "python", "*.py"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		source := filepath.Base(path)
		t.Run(source, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			src := string(raw)
			header, _, _ := strings.Cut(src, "\n")
			if digest, ok := own[source]; ok {
				require.Contains(t, src, ownHeader, "%s: its header does not say it is %s", source, ownHeader)
				require.NotRegexp(t, citation, src, "%s: swapcheck's own file cites numba-cuda", source)
				sum := sha256.Sum256(raw)
				require.Equal(t, digest, hex.EncodeToString(sum[:]),
					"%s changed: check the lines swap/ and docs/proposed_fix.md cite, then pin its new SHA-256 here", source)
				return
			}
			m := citation.FindStringSubmatch(header)
			require.NotNil(t, m, "%s: its first line pins no \"numba-cuda COMMIT kernelapi.py:A-B sha256 DIGEST\"", source)
			first, err := strconv.Atoi(m[2])
			require.NoError(t, err)
			last, err := strconv.Atoi(m[3])
			require.NoError(t, err)

			i := strings.Index(src, "\n@contextmanager\n")
			require.GreaterOrEqual(t, i, 0, "%s: no @contextmanager line", source)
			fn := src[i+1:]
			require.Equal(t, last-first+1, strings.Count(fn, "\n"),
				"%s: the function's lines are not kernelapi.py's %d-%d", source, first, last)
			sum := sha256.Sum256([]byte(fn))
			require.Equal(t, m[4], hex.EncodeToString(sum[:]),
				"%s is not numba-cuda %s's code: compare it with scripts/fidelity.sh --repo <clone of NVIDIA/numba-cuda>",
				source, m[1])
		})
	}
}
