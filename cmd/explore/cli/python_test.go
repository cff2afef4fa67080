package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// -emit-python writes the replay script of a violation, refuses to
// overwrite it without -force, and refuses a verdict without a violation
// or what the replay cannot force (a free-threaded interleaving); -out writes replay.py too.
func TestEmitPython(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "naive.py")

	r := explore(t, "-protocol", "naive", "-emit-python", script, "-quiet")
	require.Equal(t, 1, r.code, r.stderr)
	b, err := os.ReadFile(script)
	require.NoError(t, err)
	require.Contains(t, string(b), "def swapped_cuda_module(fn, fake_cuda_module):")

	// the replay line reruns the search without writing the script
	// again (which would fail: it exists)
	replay := regexp.MustCompile(`(?m)^replay: go run \./cmd/explore (.*)$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, replay, r.stdout)
	require.NotContains(t, replay[1], "-emit-python")
	again := explore(t, append(strings.Fields(replay[1]), "-quiet")...)
	require.Equal(t, 1, again.code, again.stderr)

	r = explore(t, "-protocol", "naive", "-emit-python", script, "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "already exists; pass -force")
	r = explore(t, "-protocol", "naive", "-emit-python", script, "-force", "-quiet")
	require.Equal(t, 1, r.code, r.stderr)

	r = explore(t, "-protocol", "merged", "-emit-python", filepath.Join(dir, "merged.py"), "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "the verdict is verified and no schedule comes with it")
	require.NoFileExists(t, filepath.Join(dir, "merged.py"))

	// a random walk without a violation replays too, from -emit-python,
	// from -out's replay.py, and from -replay of its schedule.txt
	walk := filepath.Join(dir, "walk")
	r = explore(t, "-protocol", "merged", "-strategy", "random", "-runs", "1", "-seed", "3", "-emit-python", filepath.Join(dir, "walk.py"), "-out", walk, "-quiet")
	require.Equal(t, 0, r.code, r.stderr)
	require.FileExists(t, filepath.Join(dir, "walk.py"))
	require.FileExists(t, filepath.Join(walk, "replay.py"))
	sch, err := os.ReadFile(filepath.Join(walk, "schedule.txt"))
	require.NoError(t, err)
	require.Contains(t, string(sch), "# swapcheck schedule of a walk that found no violation")
	r = explore(t, "-replay", filepath.Join(walk, "schedule.txt"), "-emit-python", filepath.Join(dir, "walk2.py"))
	require.Equal(t, 0, r.code, r.stderr)
	w1, err := os.ReadFile(filepath.Join(dir, "walk.py"))
	require.NoError(t, err)
	w2, err := os.ReadFile(filepath.Join(dir, "walk2.py"))
	require.NoError(t, err)
	require.Equal(t, string(w1), string(w2))
	r = explore(t, "-protocol", "merged", "-strategy", "random", "-runs", "2", "-emit-python", filepath.Join(dir, "two.py"), "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "no schedule comes with it")

	r = explore(t, "-protocol", "naive", "-atomicity", "free-threaded", "-emit-python", filepath.Join(dir, "ft.py"), "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "cannot force atomicity free-threaded")
	require.NoFileExists(t, filepath.Join(dir, "ft.py"))

	out := filepath.Join(dir, "out")
	r = explore(t, "-protocol", "naive", "-out", out, "-quiet")
	require.Equal(t, 1, r.code, r.stderr)
	require.FileExists(t, filepath.Join(out, "replay.py"))
	r = explore(t, "-replay", filepath.Join(out, "schedule.txt"), "-emit-python", filepath.Join(dir, "replayed.py"))
	require.Equal(t, 1, r.code, r.stderr)
	require.FileExists(t, filepath.Join(dir, "replayed.py"))
}

// -emit-test writes the regression test and its support module, refuses
// to overwrite them without -force, a name pytest would not collect, and
// a counterexample the test cannot force.
func TestEmitTest(t *testing.T) {
	dir := t.TempDir()
	test := filepath.Join(dir, "test_swap_race.py")
	r := explore(t, "-protocol", "naive", "-emit-test", test, "-quiet")
	require.Equal(t, 1, r.code, r.stderr)
	b, err := os.ReadFile(test)
	require.NoError(t, err)
	require.Contains(t, string(b), "class TestSwapRace(CUDATestCase):")
	b, err = os.ReadFile(filepath.Join(dir, "support_swap_race.py"))
	require.NoError(t, err)
	require.Contains(t, string(b), "def f1():")

	r = explore(t, "-protocol", "naive", "-emit-test", test, "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "test_swap_race.py already exists; pass -force")
	r = explore(t, "-protocol", "naive", "-emit-test", test, "-force", "-quiet")
	require.Equal(t, 1, r.code, r.stderr)

	r = explore(t, "-protocol", "naive", "-emit-test", filepath.Join(dir, "race.py"), "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "name the test test_NAME.py")

	r = explore(t, "-protocol", "refcount-del", "-threads", "3", "-emit-test", filepath.Join(dir, "test_del.py"), "-quiet")
	requireUsageError(t, r)
	require.Contains(t, r.stderr, "the regression test cannot force the violation kind exception")
	require.NoFileExists(t, filepath.Join(dir, "test_del.py"))
}
