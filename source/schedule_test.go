package source_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/source"
)

// TestScheduleRoundTrip: what WriteSchedule writes of a counterexample,
// ReadSchedule reads back, and its steps replay to the same failure.
func TestScheduleRoundTrip(t *testing.T) {
	sh := scenario.Shape{Threads: 2, Blocks: 1, Calls: 2, Modules: 2, Names: 1}
	p := load(t, pyvm.V312, "../testdata/python/naive.py", sh, model.GILBreaker)
	res := sched.States{}.Run(source.New(p), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	digest := source.Digest([]byte("the file's bytes"))
	var b bytes.Buffer
	require.NoError(t, source.WriteSchedule(&b, p, digest, res.Schedule))
	s, err := source.ReadSchedule(&b)
	require.NoError(t, err, b.String())
	require.Equal(t, p.Source.File, s.File)
	require.Equal(t, "swapped_cuda_module", s.Name)
	require.Equal(t, digest, s.SHA256)
	require.Equal(t, "3.12", s.Python)
	require.Equal(t, model.GILBreaker, s.Atomicity)
	require.Equal(t, p.Scenario.String(), s.Scenario.String())
	require.Equal(t, res.Schedule, s.Steps)
	_, f := source.Run(p, s.Steps)
	require.Equal(t, res.Failure, f)
}

// sampleSchedule is a source schedule file as -out writes one.
const sampleSchedule = `# swapcheck source schedule: go run ./cmd/explore -replay THIS_FILE
format 1
source dir/kernelapi.py:swapped_cuda_module
sha256 44840670dff38c4f9df60fc91090538fc7debbe78a83eec5bde13cf67289ecb1
python 3.12
atomicity gil
scenario
    threads 2
    blocks 1
    launches 1
    module kernels cuda
    module dev1 cuda
    device f1 in dev1: use cuda.local
    kernel: use cuda.threadIdx; call f1
end
# threads: 0=host 1=T0 2=T1
steps 0 0 1 2
`

// TestReadScheduleRefuses: each defect of a source schedule file is one
// line naming it.
func TestReadScheduleRefuses(t *testing.T) {
	for _, c := range []struct{ edit, says string }{
		{"format 1\n>format 2\n", "line 2: format \"2\""},
		{"sha256 44840670>sha256 XX", "want 64 lower-case hex digits"},
		{"python 3.12>python 2.7", "python \"2.7\""},
		{"source dir/kernelapi.py:swapped_cuda_module>source kernelapi.py", "want FILE:NAME"},
		{"atomicity gil>atomicity none", "unknown atomicity"},
		{"steps 0 0 1 2>steps 0 x", "step \"x\" is not a thread number"},
		{"end\n>", "no closing \"end\""},
		{"python 3.12\n>", "no python line"},
		{"# swapcheck source schedule>#", "line 1: not a source schedule"},
		{"steps 0 0 1 2>steps 0\nsteps 1", "steps given twice"},
		{"threads 2>threads x", "scenario block"},
		{"atomicity gil\n>atomicity gil\nkernel patched\n", "kernel \"patched\": want thread-context"},
	} {
		old, repl, _ := strings.Cut(c.edit, ">")
		require.Contains(t, sampleSchedule, old)
		text := strings.Replace(sampleSchedule, old, repl, 1)
		_, err := source.ReadSchedule(strings.NewReader(text))
		require.Error(t, err, c.edit)
		require.Contains(t, err.Error(), c.says)
		require.NotContains(t, err.Error(), "\n")
	}
	s, err := source.ReadSchedule(strings.NewReader(sampleSchedule))
	require.NoError(t, err)
	require.Equal(t, "dir/kernelapi.py", s.File)
	require.Equal(t, []sched.ThreadID{0, 0, 1, 2}, s.Steps)
	require.False(t, s.ThreadContext, "no kernel line: kernel.py as numba-cuda has it")
}

// TestScheduleKeepsThreadContext: a run with kernel.py patched
// (-thread-context) writes it, and the schedule read back replays under
// it to the same failure (merged-fix's wait without a timeout, two hosts:
// a deadlock that kernel.py unpatched reaches differently).
func TestScheduleKeepsThreadContext(t *testing.T) {
	sc, err := scenario.Shape{Threads: 2, Blocks: 1, Hosts: 2, Calls: 1, Modules: 1, Names: 1}.Build()
	require.NoError(t, err)
	src, err := pysource.Load(interpreter(t, pyvm.V312), "testdata/mergedfix_nowake.py")
	require.NoError(t, err)
	p, err := source.LoadWith(src, sc, model.GIL, source.Options{ThreadContext: true})
	require.NoError(t, err)
	res := sched.States{}.Run(source.New(p), sched.Limits{})
	require.Equal(t, sched.Violation, res.Verdict)
	var b bytes.Buffer
	require.NoError(t, source.WriteSchedule(&b, p, source.Digest([]byte("x")), res.Schedule))
	require.Contains(t, b.String(), "\nkernel thread-context\n")
	s, err := source.ReadSchedule(&b)
	require.NoError(t, err)
	require.True(t, s.ThreadContext)
	again, err := source.LoadWith(src, s.Scenario, s.Atomicity, source.Options{ThreadContext: s.ThreadContext})
	require.NoError(t, err)
	res2, err := sched.Replay(source.New(again), s.Steps, sched.Limits{})
	require.NoError(t, err)
	require.Equal(t, res.Failure, res2.Failure)
}

// FuzzSourceSchedule: ReadSchedule never panics, says what is wrong in
// one line, and what it accepts names a file, a function and a digest.
func FuzzSourceSchedule(f *testing.F) {
	f.Add([]byte(sampleSchedule))
	f.Add([]byte(strings.Replace(sampleSchedule, "steps 0 0 1 2", "steps", 1)))
	f.Add([]byte(strings.Replace(sampleSchedule, "source dir/", "source C:\\x:y/", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := source.ReadSchedule(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		if s.File == "" || s.Name == "" || len(s.SHA256) != 64 || s.Scenario == nil || s.Atomicity == 0 || s.Python == "" {
			t.Fatalf("accepted an incomplete schedule: %+v", s)
		}
	})
}
