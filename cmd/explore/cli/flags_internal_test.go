package cli

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

// TestFlagTable: the flag table is the one place flags are declared, and
// a row that contradicts itself fails here rather than breaking a flag
// silently: each row defines exactly its own flag, once; names are
// unique; each mode's own flag is a row read by that mode; every mode but
// -list, -table and -version reads flags; the strategies a row names
// exist.
func TestFlagTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range flagTable {
		require.False(t, seen[f.name], "-%s has two rows", f.name)
		seen[f.name] = true
		require.NotZero(t, f.modes, "-%s is read by no mode", f.name)
		fs := flag.NewFlagSet("row", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.define(fs, &options{set: map[string]bool{}})
		var defined []string
		fs.VisitAll(func(d *flag.Flag) { defined = append(defined, d.Name) })
		require.Equal(t, []string{f.name}, defined, "the row of -%s defines other flags", f.name)
		for _, s := range f.strategies {
			require.Contains(t, check.Strategies, s, "-%s names strategy %q", f.name, s)
		}
	}
	for _, m := range modes {
		if m.flag != "" {
			require.True(t, seen[m.flag], "mode %q is picked by -%s, which has no row", m.name, m.flag)
			require.True(t, slices.Contains(flagsOf(m.id), m.flag), "mode %q does not read its own flag -%s", m.name, m.flag)
		}
		if m.id != modeList && m.id != modeTable && m.id != modeVersion {
			require.NotEmpty(t, m.reads, "mode %q reads no flag", m.name)
		}
	}
}
