package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
	"swapcheck/internal/testenv"
)

// readmeCommand is one command line of a ```sh block of a Markdown file.
type readmeCommand struct {
	line    int      // the file's line number, from 1
	text    string   // the command as written, without its comment
	words   []string // the command split as a shell splits it
	comment string   // what follows the command's unquoted '#', or ""
	// shows is the ```text block right after the sh block, for its last
	// command: lines its output must hold, in order ("..." skips any)
	shows []string
}

// readmeShellCommands returns the command lines of every ```sh block of a
// Markdown text, in order. Lines ending in a backslash continue on the
// next; blank lines and comment-only lines are not commands.
func readmeShellCommands(t *testing.T, markdown string) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	inSh, inShows, afterSh := false, false, false
	var pending string
	pendingLine := 0
	var shows []string
	for i, line := range strings.Split(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if inShows {
			if trimmed == "```" {
				inShows = false
				if len(cmds) > 0 {
					cmds[len(cmds)-1].shows = shows
				}
				continue
			}
			shows = append(shows, line)
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			require.Empty(t, pending, "line %d: a sh block ends inside a continued line", i+1)
			if inSh {
				inSh, afterSh = false, true
				continue
			}
			if trimmed == "```text" && afterSh {
				inShows, shows = true, nil
				continue
			}
			inSh, afterSh = trimmed == "```sh", false
			continue
		}
		if trimmed != "" {
			afterSh = false
		}
		if !inSh {
			continue
		}
		if pending == "" {
			pendingLine = i + 1
		}
		if strings.HasSuffix(trimmed, `\`) {
			pending += strings.TrimSuffix(trimmed, `\`) + " "
			continue
		}
		full := pending + trimmed
		pending = ""
		words, comment, err := splitShellLine(full)
		require.NoError(t, err, "line %d", pendingLine)
		if len(words) == 0 {
			continue
		}
		text := full
		if k := strings.Index(full, "#"+comment); comment != "" && k >= 0 {
			text = strings.TrimSpace(full[:k])
		}
		cmds = append(cmds, readmeCommand{line: pendingLine, text: text, words: words, comment: comment})
	}
	require.False(t, inSh, "a sh block is not closed")
	return cmds
}

// splitShellLine splits a command line into words as a POSIX shell does for
// the quoting a README uses (single quotes, double quotes with backslash
// escapes, backslash outside quotes), and returns the text after an
// unquoted '#' that starts a word as the comment.
func splitShellLine(s string) (words []string, comment string, err error) {
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			return words, s[i+1:], nil
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, "", fmt.Errorf("unterminated ' in %q", s)
			}
			word.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				word.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, "", fmt.Errorf("unterminated \" in %q", s)
			}
		case c == '\\' && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, "", nil
}

func TestSplitShellLine(t *testing.T) {
	for _, tc := range []struct {
		line    string
		words   []string
		comment string
	}{
		{"go run ./cmd/explore -protocol naive   # exits 1", []string{"go", "run", "./cmd/explore", "-protocol", "naive"}, " exits 1"},
		{"go test -bench 'Child|Peek' ./model", []string{"go", "test", "-bench", "Child|Peek", "./model"}, ""},
		{`echo "a # b" c\ d#e`, []string{"echo", "a # b", "c d#e"}, ""},
		{"# only a comment", nil, " only a comment"},
		{"", nil, ""},
	} {
		t.Run(tc.line, func(t *testing.T) {
			words, comment, err := splitShellLine(tc.line)
			require.NoError(t, err)
			require.Equal(t, tc.words, words)
			require.Equal(t, tc.comment, comment)
		})
	}
	_, _, err := splitShellLine("echo 'open")
	require.Error(t, err)
}

// exitsRE finds the README's annotation of a command's exit status in its
// comment: "exits 1".
var exitsRE = regexp.MustCompile(`\bexits (\d+)\b`)

// runBinary runs bin with args in the working directory and returns its
// exit status, stdout and stderr.
func runBinary(t *testing.T, bin string, args []string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("running %s: %v", bin, err)
	return 0, "", ""
}

// docFiles are the files whose sh blocks TestREADMECommands runs: the
// README and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../../docs/*.md")
	require.NoError(t, err)
	return append([]string{"../../../README.md"}, files...)
}

// TestREADMECommands runs every command of the ```sh blocks of the README
// and of docs/ that runs explore (go run ./cmd/explore ..., or ./explore
// ... after a go build), on a binary built once, and checks that it exits
// as its comment says ("# ..., exits 1"): the program's own status, which
// go run would map to 1. Where a ```text block follows the sh block, the
// last command's output (stdout, then stderr) must hold its lines, in
// order ("..." skips any), so that a figure a page states is the one the
// command prints. A command whose comment says "long" runs only with
// SWAPCHECK_LONG=1; one that says "a measurement" never runs here, nor
// one that "needs a numba-cuda checkout"; one that "needs Debian's
// python3-numba" runs where it is installed. Each file's commands run in its order, in a scratch
// directory of its own that sees the repository's testdata/ and
// check/testdata/, so that a command can read what an earlier one wrote
// (-replay out/schedule.txt). A command of another kind (go test, a
// script, a benchmark recipe) is skipped with the reason, as a skipped
// subtest; in the README, a command the test does not know fails it.
// By default only the README's commands run (what a new user reads
// first), but for those of readmeTwins, searches of seconds that a test
// of their own runs by default; the pages of docs/ run theirs, and the
// README those, with SWAPCHECK_LONG=1, as .ci/run sets it (the proofs for
// every N and the -source searches among them took most of the test's
// time).
func TestREADMECommands(t *testing.T) {
	testdata, err := filepath.Abs("../../../testdata")
	require.NoError(t, err)
	golden, err := filepath.Abs("../../../check/testdata")
	require.NoError(t, err)
	bin := buildExplore(t)
	ran := 0
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		name := filepath.Base(file)
		if name != "README.md" {
			name = "docs/" + name
		}
		cmds := readmeShellCommands(t, string(b))
		if len(cmds) == 0 {
			continue
		}
		if name != "README.md" && !testenv.Long() {
			t.Run(name, func(t *testing.T) {
				t.Skipf("%s: %d commands of docs/: they run with SWAPCHECK_LONG=1 (as .ci/run sets it)", name, len(cmds))
			})
			continue
		}
		dir := t.TempDir()
		require.NoError(t, os.Symlink(testdata, filepath.Join(dir, "testdata")))
		require.NoError(t, os.Mkdir(filepath.Join(dir, "check"), 0o755))
		require.NoError(t, os.Symlink(golden, filepath.Join(dir, "check", "testdata")))
		for _, c := range cmds {
			t.Run(fmt.Sprintf("%s:%d", name, c.line), func(t *testing.T) {
				w := c.words
				var args []string
				switch {
				case len(w) >= 3 && w[0] == "go" && w[1] == "run" && w[2] == "./cmd/explore":
					args = w[3:]
				case w[0] == "./explore":
					args = w[1:]
				case len(w) >= 2 && w[0] == "go" && w[1] == "build" && slices.Contains(w, "./cmd/explore"):
					t.Skipf("%s: the test builds the command itself", c.text)
				case len(w) >= 2 && w[0] == "go" && w[1] == "test":
					t.Skipf("%s: a go test command; the suites are what runs this test", c.text)
				case strings.HasPrefix(w[0], "scripts/"):
					t.Skipf("%s: a script; it needs tools beyond Go (SPIN, valgrind, a second commit) and minutes", c.text)
				case name != "README.md":
					t.Skipf("%s: a measurement recipe: what it prints is timings", c.text)
				default:
					t.Fatalf("%s:%d: %q is neither go run ./cmd/explore, ./explore, go build, go test nor a script: teach TestREADMECommands how to check it", name, c.line, c.text)
				}
				m := exitsRE.FindStringSubmatch(c.comment)
				require.NotNil(t, m, "%s:%d: %q does not say how it exits (end its comment with \"exits N\")", name, c.line, c.text)
				if measurementRE.MatchString(c.comment) {
					t.Skipf("%s: a measurement of minutes: what it prints is timings", c.text)
				}
				if longRE.MatchString(c.comment) && !testenv.Long() {
					t.Skipf("%s: long (minutes): runs with SWAPCHECK_LONG=1", c.text)
				}
				if twin, ok := readmeTwins[c.text]; ok && !testenv.Long() {
					t.Skipf("%s: a search of seconds; by default %s; the page's command runs with SWAPCHECK_LONG=1", c.text, twin)
				}
				if checkoutRE.MatchString(c.comment) {
					t.Skipf("%s: it reads a clone of NVIDIA/numba-cuda beside the repository, which no test fetches", c.text)
				}
				if debianNumbaRE.MatchString(c.comment) {
					if _, err := os.Stat(debianNumba); err != nil {
						testenv.Unavailable(t, "SWAPCHECK_REQUIRE_NUMBA", fmt.Sprintf("%s: %s is not here: apt-get install python3-numba", c.text, debianNumba))
					}
				}
				want, err := strconv.Atoi(m[1])
				require.NoError(t, err)
				t.Chdir(dir)
				got, stdout, stderr := runBinary(t, bin, args)
				require.Equal(t, want, got, "%s:%d: %s\nexits %d, not %d as the page says; stderr:\n%s",
					name, c.line, c.text, got, want, stderr)
				requireShows(t, c.shows, stdout+stderr, fmt.Sprintf("%s:%d", name, c.line))
				ran++
			})
		}
	}
	require.GreaterOrEqual(t, ran, 5, "TestREADMECommands ran few commands: did the sh blocks move?")
}

// readmeTwins are the README's commands whose search takes seconds, by
// their text, each with the test that checks its world by default; the
// README's run of them (its exit status and its text block) is
// TestREADMECommands' with SWAPCHECK_LONG=1. A command edited out of
// this list's text runs by default again.
var readmeTwins = map[string]string{
	"go run ./cmd/explore -protocol merged -atomicity gil-breaker -threads all":                        "TestThreadsAll runs the same command",
	"go run ./cmd/explore -protocol merged -atomicity gil-breaker -threads 1024":                       "TestWideBlockByProof runs the proof at 1024 threads (proposed), TestThreadsAll merged's under gil-breaker",
	"go run ./cmd/explore -source testdata/python/merged_fix.py -python 3.12 -hosts 2 -thread-context": "source's TestMergedFixWaitsFromSource verifies the same file and world, with no hang",
	"go run ./cmd/explore -source testdata/python/proposed.py -python 3.12 -threads 3 -thread-context": "source's TestSymmetryChangesNoVerdict verifies the same file on three threads (CPython 3.12)",
}

// longRE finds the mark of a command too long for the default suite.
var longRE = regexp.MustCompile(`\blong\b`)

// checkoutRE finds the mark of a command that reads a clone of
// NVIDIA/numba-cuda (-source on its kernelapi.py): no test runs it, as
// CI fetches nothing.
var checkoutRE = regexp.MustCompile(`\bneeds a numba-cuda checkout\b`)

// debianNumbaRE finds the mark of a command that reads Debian's numba
// (-source on its kernelapi.py): it runs where python3-numba is
// installed, and fails the test without it under SWAPCHECK_REQUIRE_NUMBA
// (which CI sets), as the replays on numba do.
var debianNumbaRE = regexp.MustCompile(`\bneeds Debian's python3-numba\b`)

// debianNumba is the simulator of Debian's python3-numba.
const debianNumba = "/usr/lib/python3/dist-packages/numba/cuda/simulator/kernelapi.py"

// measurementRE finds the mark of a command that measures for minutes
// (docs/stress.md's -compare table): its output is timings, which no test
// can compare, so no suite runs it.
var measurementRE = regexp.MustCompile(`\ba measurement\b`)

// requireShows fails unless out holds the lines shows, in order, but for
// "..." lines, which skip any.
func requireShows(t *testing.T, shows []string, out, where string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	next := 0
	for _, want := range shows {
		if strings.TrimSpace(want) == "..." {
			continue
		}
		found := false
		for ; next < len(lines) && !found; next++ {
			found = lines[next] == want
		}
		require.True(t, found, "%s: the page shows %q, which the command does not print there; paste its output again:\n%s", where, want, out)
	}
}

// TestREADMETraceExcerpt checks that the README's example trace is the
// output of the command it says made it: every line it shows is a line of
// that output, in the same order ("..." marks lines left out).
func TestREADMETraceExcerpt(t *testing.T) {
	_, section, ok := strings.Cut(readREADME(t), "## Reading a trace\n")
	require.True(t, ok, "README.md lacks its section \"Reading a trace\"")
	_, block, ok := strings.Cut(section, "```text\n")
	require.True(t, ok, "README.md's \"Reading a trace\" has no text block")
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)

	// from the repository's root, as the README's commands run
	t.Chdir("../../..")
	var stdout, stderr bytes.Buffer
	require.Equal(t, cli.ExitViolation, cli.Run([]string{"-protocol", "naive"}, &stdout, &stderr), stderr.String())
	out := strings.Split(stdout.String(), "\n")
	next, shown := 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.TrimSpace(line) == "..." {
			continue
		}
		found := false
		for ; next < len(out) && !found; next++ {
			found = out[next] == line
		}
		require.True(t, found, "README.md's example trace shows %q, which explore -protocol naive does not print there; paste its output again", line)
		shown++
	}
	require.Greater(t, shown, 10, "README.md's example trace is nearly empty")
}
