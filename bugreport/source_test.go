package bugreport_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/scenario"
)

// sourceReport is a -source counterexample as the command hands it over
// (the trace's table shortened).
func sourceReport(t *testing.T) bugreport.SourceReport {
	t.Helper()
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	return bugreport.SourceReport{
		File: "kernelapi.py", Function: "swapped_cuda_module", SHA256: "ab12", Python: "3.12.1",
		Atomicity: "gil", Scenario: sc,
		Kind: "use-saw-real", Thread: "T1",
		Message: "dev1.cuda is the real module, not fake#1: AttributeError: module 'numba.cuda' has no attribute 'local'",
		Shrunk:  "nothing: no smaller scenario has this kind", States: 57,
		Steps: 28, Preemptions: 2, StepMeaning: "a step runs ...", Table: " step | host\n    1 | kernel.py  _kernel_context = mod\n",
		Search: "go run ./cmd/explore -python 3.12 -source kernelapi.py",
		Script: []byte("print('replay')\n"),
	}
}

// WriteSource: the title names the function, the file and the feature
// version; the story is the search's (or the replay's, and then no
// search command); a small replay is inline, packed, a large one named
// as an attachment, a refused one explained; 3.12's replay runs with
// CPython 3.12 on the stand-in, 3.11's on numba; no path of the machine
// shows.
func TestWriteSource(t *testing.T) {
	write := func(r bugreport.SourceReport) string {
		var b bytes.Buffer
		require.NoError(t, bugreport.WriteSource(&b, r))
		require.Empty(t, bugreport.LocalPaths(b.String()))
		return b.String()
	}
	r := sourceReport(t)
	md := write(r)
	require.True(t, strings.HasPrefix(md, "# `swapped_cuda_module` (`kernelapi.py`, CPython 3.12): AttributeError: module 'numba.cuda' has no attribute 'local' (2 threads, 1 block, 1 launch)\n"))
	require.Contains(t, md, "compiled by CPython 3.12.1")
	require.Contains(t, md, "swapcheck found it by searching")
	require.Contains(t, md, "AttributeError: tid=[1, 0, 0] ctaid=[0, 0, 0]: module 'numba.cuda' has no attribute 'local'")
	require.Contains(t, md, "<summary>replay.py, packed</summary>")
	require.Contains(t, md, "python3.12 replay.py\n")
	require.NotContains(t, md, "--target numba")
	require.Contains(t, md, "`go run ./cmd/explore -python 3.12 -source kernelapi.py`")

	r.Python = "3.11.7"
	r.Replayed = true
	md = write(r)
	require.Contains(t, md, "/usr/bin/python3 replay.py --target numba\n")
	require.Contains(t, md, "swapcheck replayed this trace")
	require.NotContains(t, md, "found it by searching")

	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 100_000) // random hex packs to about 68 kB: too long for an issue
	for i := range big {
		big[i] = "0123456789abcdef"[rng.IntN(16)]
	}
	r.Script = big
	md = write(r)
	require.NotContains(t, md, "<summary>replay.py, packed</summary>")
	require.Contains(t, md, "does not fit in an issue's body beside this report: attach it")

	r.Script, r.NoScript = nil, "the replay cannot force atomicity free-threaded"
	md = write(r)
	require.Contains(t, md, "There is no Python replay of this trace: the replay cannot force atomicity free-threaded.\n")
	require.Contains(t, md, "the trace below shows it")

	r.Search = "go run ./cmd/explore -source /home/me/kernelapi.py"
	md = write(r)
	require.NotContains(t, md, "/home/me")
}
