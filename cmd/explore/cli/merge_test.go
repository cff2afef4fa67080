package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// The worked example of docs/sharding.md: parts of a search run as
// separate commands, and explore merge gives the unsharded verdict.
func TestShardAndMerge(t *testing.T) {
	cases := []struct {
		protocol string
		threads  string
		verdict  string
		exit     int
	}{
		{"merged", "3", "verified", cli.ExitOK},
		{"refcount-del", "3", "violation", cli.ExitViolation},
		{"naive", "2", "violation", cli.ExitViolation},
	}
	for _, c := range cases {
		t.Run(c.protocol, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for i := range 3 {
				out := filepath.Join(dir, fmt.Sprint(i))
				var stdout, stderr bytes.Buffer
				code := cli.Run([]string{"-strategy", "states", "-protocol", c.protocol, "-threads", c.threads, "-shard", fmt.Sprintf("%d/3", i), "-out", out, "-quiet", "-json"}, &stdout, &stderr)
				require.Contains(t, []int{cli.ExitOK, cli.ExitViolation}, code, stderr.String())
				files = append(files, filepath.Join(out, "summary.json"))
			}
			var stdout, stderr bytes.Buffer
			code := cli.Run(append([]string{"merge", "-json"}, files...), &stdout, &stderr)
			require.Equal(t, c.exit, code, stderr.String())
			var merged struct {
				Verdict     string                 `json:"verdict"`
				Shard       string                 `json:"shard"`
				Preemptions *check.PreemptionStats `json:"preemptions"`
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &merged))
			require.Equal(t, c.verdict, merged.Verdict)
			require.Equal(t, "merged 3 of 3", merged.Shard)
			require.NotNil(t, merged.Preemptions, "the parts' preemptions, combined")

			// Without one part, a verified search is not verified.
			stdout.Reset()
			code = cli.Run(append([]string{"merge", "-json"}, files[:2]...), &stdout, &stderr)
			if c.verdict == "verified" {
				require.Equal(t, cli.ExitIncomplete, code)
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &merged))
				require.Equal(t, "incomplete", merged.Verdict)
			}
		})
	}
}

func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte("not json"), 0o644))
	unsharded := filepath.Join(dir, "unsharded")
	var sink bytes.Buffer
	require.Equal(t, cli.ExitOK, cli.Run([]string{"-strategy", "states", "-protocol", "merged", "-out", unsharded, "-quiet"}, &sink, &sink))
	for name, c := range map[string]struct {
		args []string
		want string // in the message
	}{
		"no files":      {[]string{"merge"}, "give the summary.json of every shard"},
		"missing file":  {[]string{"merge", filepath.Join(dir, "nope.json")}, "nope.json"},
		"not a summary": {[]string{"merge", garbage}, "garbage.json"},
		"not sharded":   {[]string{"merge", filepath.Join(unsharded, "summary.json")}, "was the summary written with -shard?"},
		"bad flag":      {[]string{"merge", "-frobnicate"}, "frobnicate"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, cli.ExitUsage, cli.Run(c.args, &stdout, &stderr))
			require.Empty(t, stdout.String())
			require.Regexp(t, `^explore merge: [^\n]+\n$`, stderr.String())
			require.Contains(t, stderr.String(), c.want)
		})
	}
	for _, bad := range []string{"3/3", "-1/2", "a/b", "1", "0/0"} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, cli.ExitUsage, cli.Run([]string{"-protocol", "merged", "-shard", bad}, &stdout, &stderr), bad)
		require.Regexp(t, `^explore: -shard: [^\n]+\n$`, stderr.String())
		require.NotContains(t, stderr.String(), "summary", "the flag's message is not merge's")
	}
}
