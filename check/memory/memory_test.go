package memory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check/memory"
)

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want int64
	}{
		{"500MiB", 500 << 20},
		{"2GiB", 2 << 30},
		{"1GB", 1_000_000_000},
		{"1.5GiB", 3 << 29},
		{"64KiB", 64 << 10},
		{"10MB", 10_000_000},
		{"2G", 2 << 30},
		{"1048576", 1 << 20},
		{"100B", 100},
		{" 500 MiB ", 500 << 20},
		{"0", 0},
	}
	for _, tt := range good {
		t.Run(tt.in, func(t *testing.T) {
			got, err := memory.ParseSize(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	for _, bad := range []string{"", "MiB", "abc", "-5MiB", "5XB", "1e30TiB", "NaN", "12 34", "0x10"} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := memory.ParseSize(bad)
			require.Error(t, err)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		500 << 20: "500 MiB", 3 << 29: "1.5 GiB", 100: "100 B", 1 << 40: "1 TiB", 1536: "1.5 KiB",
	} {
		require.Equal(t, want, memory.Format(n))
		var s memory.Size
		require.NoError(t, s.Set(want))
		require.Equal(t, strings.ReplaceAll(want, " ", ""), s.String(), "reads back what it prints")
	}
}

// Over says yes once the process holds more than the limit, and from then
// on, even if it holds less again (a search's Stop must stay true); Afford
// refuses a table that would take the process past the limit, and that
// counts as reaching it.
func TestBound(t *testing.T) {
	held := int64(100 << 20)
	b := memory.NewForTest(200<<20, func() int64 { return held })
	require.False(t, b.Over())
	require.Empty(t, b.Reason())
	require.True(t, b.Afford(50<<20))
	held = 300 << 20
	require.True(t, b.Over())
	held = 10 << 20
	require.True(t, b.Over(), "stays over")
	require.Equal(t, "-max-memory 200 MiB reached: the process held 300 MiB", b.Reason())
	require.False(t, b.Afford(1))

	b = memory.NewForTest(200<<20, func() int64 { return 150 << 20 })
	require.False(t, b.Afford(64<<20))
	require.True(t, b.Over())
	require.Contains(t, b.Reason(), "the visited set's next table takes 64 MiB more")

	for _, none := range []*memory.Bound{nil, memory.New(0)} {
		require.False(t, none.Over())
		require.True(t, none.Afford(1<<62))
		require.Zero(t, none.Limit())
	}
}

// What the process holds and what the machine has are read (on Linux;
// elsewhere they are 0, and there is no default bound).
func TestReadings(t *testing.T) {
	if memory.Total() == 0 {
		t.Skip("no /proc/meminfo here")
	}
	require.Positive(t, memory.Resident())
	require.Greater(t, memory.Total(), memory.Resident())
	require.Equal(t, int64(float64(memory.Total())*memory.DefaultShare), memory.Default())
}
