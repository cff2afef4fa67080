package check

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestCommandLines: a replay command breaks at spaces outside quotes into
// lines of at most the width, each but the last ending in " \", a flag
// on the line of its value, and the lines read back (as a shell joins
// them) as the command.
func TestCommandLines(t *testing.T) {
	tests := []struct {
		name, cmd string
		want      []string
	}{
		{"short", "replay: go run ./cmd/explore -protocol naive", []string{"replay: go run ./cmd/explore -protocol naive"}},
		{"a flag stays with its value", "replay: go run ./cmd/explore -atomicity free-threaded-overwrite -calls 2 -modules 2 -protocol refcount-unregistered -strategy dfs -threads 2",
			[]string{"replay: go run ./cmd/explore -atomicity free-threaded-overwrite -calls 2 \\", "    -modules 2 -protocol refcount-unregistered -strategy dfs -threads 2"}},
		{"a quoted word is one", "replay: go run ./cmd/explore -protocol naive -scenario 'a long file name with spaces in it.txt' -strategy dfs",
			[]string{"replay: go run ./cmd/explore -protocol naive \\", "    -scenario 'a long file name with spaces in it.txt' -strategy dfs"}},
		{"a word longer than a line", "replay: go run ./cmd/explore -replay /" + strings.Repeat("x", 90),
			[]string{"replay: go run ./cmd/explore \\", "    -replay /" + strings.Repeat("x", 90)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := commandLines(tt.cmd, 0, TextWidth)
			require.Equal(t, tt.want, got)
			joined := strings.ReplaceAll(strings.Join(got, "\n"), " \\\n    ", " ")
			require.Equal(t, tt.cmd, joined)
			for _, l := range got {
				if !strings.Contains(l, strings.Repeat("x", 90)) {
					require.LessOrEqual(t, utf8.RuneCountInString(l), TextWidth, l)
				}
			}
		})
	}
}
