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

// upstream pins each variant's Python file to numba-cuda's own code: the
// SHA-256 of lines First to Last of numba_cuda/numba/cuda/simulator/
// kernelapi.py at Commit (each line ending in a newline), as
// scripts/fidelity.sh --repo <clone of NVIDIA/numba-cuda> prints them.
// That script diffs the files against the repository; this test keeps
// them from drifting without it.
var upstream = map[string]struct {
	commit      string
	first, last int
	sha256      string
}{
	"naive.py":                 {"55a84eb7", 494, 509, "16b7ee7d6ee9c5d2433859101ff95290bbcb6c70d11cb24d6574d6d4366bce69"},
	"global_lock.py":           {"8356c6f8", 496, 528, "f0bd68ceca4d47a626dc20230c18cf59cbcb6280e8a253b9b5975ab56658c394"},
	"refcount_unregistered.py": {"41104c54", 497, 527, "4a929d0a2996ab02d08f3717bea398d320ee85ffab7879969c665db1489fddd9"},
	"refcount_del.py":          {"67acbfbd", 498, 531, "9d317a4a361d31d8edf3deda3733b907e0752dbc6fe39690341c506dc607a62f"},
	"merged.py":                {"d41b90d3", 501, 534, "09b129934152cee2d24d23eee09e8851d84130a1254f57149d248f21165ecdb0"},
}

// own pins each of swapcheck's own variants (a fix the project proposes,
// not numba-cuda's code) to the SHA-256 of its whole file, so that the
// lines its listing and docs/proposed_fix.md cite cannot drift unseen. Its
// header must say it is not numba-cuda's code; a file is upstream or own,
// never both.
var own = map[string]string{
	"proposed.py": "55a73dca3f9ac9632cc44de2fd00496bf9de3aa6405fe6f8393289a249f99810",
}

const ownHeader = "swapcheck's own fix, not numba-cuda's code"

var citation = regexp.MustCompile(`numba-cuda ([0-9a-f]{7,40}) kernelapi\.py:([0-9]+)-([0-9]+)`)

// TestSourcesAreUpstream: every protocol's Python file holds numba-cuda's
// swapped_cuda_module of its commit line for line (from "@contextmanager"
// to the end of the file), and its header cites that commit and those
// lines.
func TestSourcesAreUpstream(t *testing.T) {
	require.Len(t, upstream, len(protocols)-len(own), "one pinned file per protocol")
	for _, p := range protocols {
		t.Run(p.Name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "python", p.Source))
			require.NoError(t, err)
			src := string(raw)
			if digest, ok := own[p.Source]; ok {
				_, both := upstream[p.Source]
				require.False(t, both, "%s is pinned as upstream and as swapcheck's own", p.Source)
				require.Contains(t, src, ownHeader, "%s: its header does not say it is %s", p.Source, ownHeader)
				require.NotRegexp(t, citation, src, "%s: swapcheck's own file cites numba-cuda", p.Source)
				sum := sha256.Sum256(raw)
				require.Equal(t, digest, hex.EncodeToString(sum[:]),
					"%s changed: check the lines swap/ and docs/proposed_fix.md cite, then pin its new SHA-256 here", p.Source)
				return
			}
			want, ok := upstream[p.Source]
			require.True(t, ok, "%s: no upstream digest for %s", p.Name, p.Source)

			m := citation.FindStringSubmatch(src)
			require.NotNil(t, m, "%s: its header cites no \"numba-cuda COMMIT kernelapi.py:A-B\"", p.Source)
			require.Equal(t, []string{want.commit, strconv.Itoa(want.first), strconv.Itoa(want.last)}, m[1:],
				"%s: the header's citation", p.Source)

			i := strings.Index(src, "\n@contextmanager\n")
			require.GreaterOrEqual(t, i, 0, "%s: no @contextmanager line", p.Source)
			fn := src[i+1:]
			require.Equal(t, want.last-want.first+1, strings.Count(fn, "\n"),
				"%s: the function's lines are not kernelapi.py's %d-%d", p.Source, want.first, want.last)
			sum := sha256.Sum256([]byte(fn))
			require.Equal(t, want.sha256, hex.EncodeToString(sum[:]),
				"%s is not numba-cuda %s's code: compare it with scripts/fidelity.sh --repo <clone of NVIDIA/numba-cuda>",
				p.Source, want.commit)
		})
	}
}
