package pyreplay_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// racesReport is what testdata/cpython/simulator_races.py prints.
type racesReport struct {
	Python, Numba string
	LostUpdate    atomicsCase `json:"lost-update"`
	LostFixed     atomicsCase `json:"lost-update-fixed"`
	NotShared     sharedCase  `json:"shared-not-shared"`
	SharedFixed   sharedCase  `json:"shared-fixed"`
}

type atomicsCase struct {
	Value, Expected int
	Forced          bool
	WaitedOut       bool `json:"thread0_waited_out"`
}

type sharedCase struct {
	OneArray    bool `json:"one_array"`
	Sums        []int
	ExpectedSum int `json:"expected_sum"`
	Forced      bool
}

// The simulator's other two races (issue 30) happen on numba 0.56.4's
// real simulator when their interleaving is forced, on every run, and the
// fixes close them: cuda.atomic.add and cuda.atomic.sub on one element
// (addlock and sublock do not exclude each other) lose an update, and
// under one lock do not; two threads that both miss FakeCUDAShared's
// _allocations get different "shared" arrays (the kernel's sum after
// syncthreads is garbage), and with setdefault one. Twice by default, 20
// runs with SWAPCHECK_LONG.
func TestSimulatorRacesOnNumba(t *testing.T) {
	t.Parallel()
	py := pythonWithNumba(t)
	runs := count(2, 20)
	script, err := filepath.Abs(filepath.Join("..", "testdata", "cpython", "simulator_races.py"))
	require.NoError(t, err)
	scripts := make([]string, runs)
	for i := range scripts {
		scripts[i] = script
	}
	for i, r := range runPythonEnv(py, []string{"NUMBA_ENABLE_CUDASIM=1"}, scripts) {
		require.Equal(t, 0, r.code, "run %d:\n%s", i, r.stdout)
		var rep racesReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), "run %d:\n%s", i, r.stdout)
		t.Logf("run %d on Python %s, numba %s: %+v", i, rep.Python, rep.Numba, rep)

		lost := rep.LostUpdate
		require.True(t, lost.Forced && !lost.WaitedOut, "run %d: the add/sub interleaving was not forced", i)
		require.NotEqual(t, lost.Expected, lost.Value, "run %d: add and sub under different locks kept both updates", i)
		fixed := rep.LostFixed
		require.True(t, fixed.Forced && fixed.WaitedOut, "run %d: under one lock the sub must wait for the add", i)
		require.Equal(t, fixed.Expected, fixed.Value, "run %d: under one lock an update was lost", i)

		ns := rep.NotShared
		require.True(t, ns.Forced, "run %d: the shared-array interleaving was not forced", i)
		require.False(t, ns.OneArray, "run %d: two threads that both missed got one array", i)
		sf := rep.SharedFixed
		require.True(t, sf.Forced && sf.OneArray, "run %d: with setdefault both threads must hold one array", i)
		require.Equal(t, []int{sf.ExpectedSum, sf.ExpectedSum}, sf.Sums, "run %d: with one array each thread sums both slots", i)
	}
}
