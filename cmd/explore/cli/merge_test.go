package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
)

// Parts of a search with the default strategy run as separate commands,
// and explore merge gives the unsharded verdict.
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
				code := cli.Run([]string{"-protocol", c.protocol, "-threads", c.threads, "-shard", fmt.Sprintf("%d/3", i), "-out", out, "-quiet", "-json"}, &stdout, &stderr)
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

// TestShardingDocCommands runs the batch engines' commands of
// docs/sharding.md, in-process: every "go run ./cmd/explore ..." of the
// page (up to the end of its line, a quote, a backquote, a ";" or a
// comment) that a batch engine templates (an index variable, a glob); the
// page's plain commands are TestREADMECommands'. The part
// commands' index variables (${{ matrix.shard }}, $JOB_COMPLETION_INDEX,
// $i) take every value 0..n-1 of their "-shard .../n"; their -out paths
// and merge's globs are taken under a temporary directory; and -threads 4
// and 5 become -threads 3, so that the test takes seconds (the page's
// shapes take minutes). Each group of parts must exit 0 and the merge
// that follows it must give the unsharded verdict, verified.
func TestShardingDocCommands(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/sharding.md")
	require.NoError(t, err)
	index := regexp.MustCompile(`\$\{\{ matrix\.shard \}\}|\$JOB_COMPLETION_INDEX|\$i\b`)
	commands := regexp.MustCompile("go run \\./cmd/explore([^\n\"`;#]*)").FindAllStringSubmatch(string(doc), -1)
	var parts, merges int
	root := t.TempDir()
	for _, m := range commands {
		text := strings.TrimSpace(index.ReplaceAllString(m[1], "{i}"))
		if text == "" {
			continue // the page's prose naming the command itself
		}
		if !strings.Contains(text, "{i}") && !strings.Contains(text, "*") {
			continue // a command as a user types it: TestREADMECommands runs it
		}
		args := strings.Fields(text)
		for k := range args {
			if k > 0 && args[k-1] == "-threads" && (args[k] == "4" || args[k] == "5") {
				args[k] = "3"
			}
			if k > 0 && args[k-1] == "-out" || strings.HasSuffix(args[k], "summary.json") {
				args[k] = filepath.Join(root, args[k])
			}
		}
		t.Run(text, func(t *testing.T) {
			if args[0] == "merge" {
				merges++
				var files []string
				for _, a := range args[1:] {
					matched, err := filepath.Glob(a)
					require.NoError(t, err)
					require.NotEmpty(t, matched, "%s matches no file", a)
					files = append(files, matched...)
				}
				var stdout, stderr bytes.Buffer
				code := cli.Run(append([]string{"merge"}, files...), &stdout, &stderr)
				require.Equal(t, cli.ExitOK, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
				got := regexp.MustCompile(`^merged \(gil\), merged (\d+) of (\d+): verified;`).FindStringSubmatch(stdout.String())
				require.NotNil(t, got, stdout.String())
				require.Equal(t, got[2], got[1], "every part merged")
				return
			}
			parts++
			shard := regexp.MustCompile(`^\{i\}/(\d+)$`)
			n := 0
			for k, a := range args {
				if k > 0 && args[k-1] == "-shard" {
					got := shard.FindStringSubmatch(a)
					require.NotNil(t, got, "-shard %s", a)
					n, _ = strconv.Atoi(got[1])
				}
			}
			require.Positive(t, n, "a part command without -shard {i}/n")
			for i := range n {
				run := make([]string, len(args))
				for k, a := range args {
					run[k] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
				}
				var stdout, stderr bytes.Buffer
				code := cli.Run(run, &stdout, &stderr)
				require.Equal(t, cli.ExitOK, code, "%v\nstdout: %s\nstderr: %s", run, stdout.String(), stderr.String())
			}
		})
	}
	require.Equal(t, 2, parts, "the page's part commands of a batch engine")
	require.Equal(t, 2, merges, "the page's merge commands of a batch engine")
}

// TestShardPartSaysMergeGivesTheVerdict: a part with no violation in its
// share says what it covered and that explore merge gives the verdict, and
// never that it covered every reachable state; it exits 0 (its share is
// done), as docs/sharding.md says. Each file it writes says so too:
// none says verified, summary.json is not complete (its share is), and
// trace.json names the part.
func TestShardPartSaysMergeGivesTheVerdict(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := filepath.Join(t.TempDir(), "part")
	code := cli.Run([]string{"-protocol", "merged", "-threads", "3", "-shard", "1/3", "-quiet", "-out", dir}, &stdout, &stderr)
	require.Equal(t, cli.ExitOK, code, stderr.String())
	require.Regexp(t, `^merged \(gil\): part 1/3 of the states search: no violation in its share \(\d+ states, \d+ executions, \d+ steps\); a part proves nothing alone: explore merge of all 3 parts' summary.json gives the verdict\n$`, stdout.String())
	require.NotContains(t, stdout.String()+stderr.String(), "verified")
	require.NotContains(t, stdout.String(), "every reachable state")
	require.Contains(t, stderr.String(), "explore: merged, part 1/3 searched, no violation in its share (explore merge gives the verdict)")

	files := readFiles(t, dir, "trace.txt", "trace.json", "trace.html", "summary.json")
	for name, text := range files {
		require.NotContains(t, text, "verified", "%s of a part says verified", name)
	}
	require.Contains(t, files["trace.txt"], "verdict: part 1/3: no violation in its share, which proves nothing alone")
	require.Contains(t, files["trace.html"], "proves nothing alone")
	for _, name := range []string{"trace.json", "trace.html", "summary.json"} {
		require.Contains(t, files[name], "part-no-violation", name)
	}
	var trace struct{ Shard string }
	require.NoError(t, json.Unmarshal([]byte(files["trace.json"]), &trace))
	require.Equal(t, "1/3", trace.Shard)
	var sum check.Summary
	require.NoError(t, json.Unmarshal([]byte(files["summary.json"]), &sum))
	require.False(t, sum.Complete, "a part's summary.json claims a complete search")
	require.True(t, sum.ShareComplete)
}

// TestMergeNamesThePart: merge's text output names the part whose
// trace.txt and schedule.txt hold the counterexample, and its account of
// what was not covered ends without a stray separator.
func TestMergeNamesThePart(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint(i))
		var sink bytes.Buffer
		code := cli.Run([]string{"-protocol", "refcount-del", "-threads", "3", "-shard", fmt.Sprintf("%d/2", i), "-out", out, "-quiet"}, &sink, &sink)
		require.Contains(t, []int{cli.ExitOK, cli.ExitViolation}, code, sink.String())
		files = append(files, filepath.Join(out, "summary.json"))
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, cli.ExitViolation, cli.Run(append([]string{"merge"}, files...), &stdout, &stderr), stderr.String())
	found := regexp.MustCompile(`(?m)^found by part (\d)/2: (\S+)/trace.txt and (\S+)/schedule.txt hold it; replay: go run ./cmd/explore -replay (\S+)$`).FindStringSubmatch(stdout.String())
	require.NotNil(t, found, stdout.String())
	part := filepath.Join(dir, found[1])
	require.Equal(t, part, found[2])
	require.FileExists(t, found[4])
	var replayOut, replayErr bytes.Buffer
	require.Equal(t, cli.ExitViolation, cli.Run([]string{"-replay", found[4]}, &replayOut, &replayErr), replayErr.String())

	// a missing part and a violation: the list has no trailing ";"
	stdout.Reset()
	require.Equal(t, cli.ExitViolation, cli.Run([]string{"merge", files[0]}, &stdout, &stderr))
	require.NotRegexp(t, `;\s*$`, stdout.String())
}
