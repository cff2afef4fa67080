package source_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/source"
	"swapcheck/variants"
)

// TestAgreementCatchesWrongFiles: the comparison of TestListingsAgree
// fails when a file is not the variant it claims to be. Each file of
// source/testdata is a variant's Python file broken on purpose (its
// header says how); compared with that variant's listing on -threads 2
// (kernel.py patched where the variant runs so: proposed),
// CPython 3.12, gil, disagreements reports exactly what the break
// changes, both as every cell is compared and as a heavy cell is: a verdict (merged without its count check leaves the module
// swapped), or only the kinds (naive without its restore still fails,
// but never sees the real module: the verdicts alone would agree).
func TestAgreementCatchesWrongFiles(t *testing.T) {
	for _, tc := range []struct {
		name, file, claims string
		// want: disagreements with every reachable kind compared;
		// aimed: as a heavy cell compares (each side's kind in the other)
		want, aimed []string
	}{
		{
			name: "merged without its count check", file: "merged_nocount.py", claims: "merged",
			want: []string{
				"verdict: listing verified, source violation",
				"reachable kinds: listing [], source [left-swapped]",
			},
			aimed: []string{
				"verdict: listing verified, source violation",
				"the source's kind left-swapped is not reachable in the listing",
			},
		},
		{
			name: "naive without its restore", file: "naive_norestore.py", claims: "naive",
			want: []string{"reachable kinds: listing [use-saw-real], source [left-swapped]"},
			aimed: []string{
				"the listing's kind use-saw-real is not reachable from source",
				"the source's kind left-swapped is not reachable in the listing",
			},
		},
		{
			name: "proposed whose dispatcher ignores the thread's context", file: "proposed_noctx.py", claims: "proposed",
			want:  []string{"verdict: listing verified, source violation", "reachable kinds: listing [], source [use-saw-real]"},
			aimed: []string{"verdict: listing verified, source violation", "the source's kind use-saw-real is not reachable in the listing"},
		},
		{
			name: "proposed whose dispatcher remembers the last fake", file: "proposed_sticky.py", claims: "proposed",
			want:  []string{"verdict: listing verified, source violation", "reachable kinds: listing [], source [left-swapped]"},
			aimed: []string{"verdict: listing verified, source violation", "the source's kind left-swapped is not reachable in the listing"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := variants.Lookup(tc.claims)
			require.NoError(t, err)
			sc, err := check.TableShapes[0].Shape.Build()
			require.NoError(t, err)
			src, err := pysource.Load(interpreter(t, pyvm.V312), filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			opts := source.Options{ThreadContext: v.Protocol.ThreadContext}
			p, err := source.LoadWith(src, sc, model.GIL, opts)
			require.NoError(t, err)
			listing := listingOutcome(t, v, sc, model.GIL, true)
			require.Equal(t, tc.want, disagreements(t, listing, sourceOutcome(t, p, true)))
			require.Equal(t, tc.aimed, disagreements(t, listingOutcome(t, v, sc, model.GIL, false), sourceOutcome(t, p, false)))

			// and the file it breaks agrees, on the same world
			good, err := pysource.Load(interpreter(t, pyvm.V312), pythonFile(v))
			require.NoError(t, err)
			p, err = source.LoadWith(good, sc, model.GIL, opts)
			require.NoError(t, err)
			require.Empty(t, disagreements(t, listing, sourceOutcome(t, p, true)))
			require.Empty(t, disagreements(t, listingOutcome(t, v, sc, model.GIL, false), sourceOutcome(t, p, false)))
		})
	}
}
