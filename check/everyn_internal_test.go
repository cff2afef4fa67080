package check

import (
	"fmt"
	"testing"

	"strings"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// coveredEveryN proves p correct for every N, then checks the proof's claim on
// the explicit search's states for 1..upTo threads: each abstracts to one
// of the abstract states. It returns the first one that does not.
func coveredEveryN(t *testing.T, cfg EveryNConfig, upTo int) error {
	t.Helper()
	pv := newProver(cfg)
	res, err := pv.prove()
	require.NoError(t, err)
	require.Equal(t, EveryNVerified, res.Verdict, res.Describe(cfg))
	// the proof's last abstract search, with its class tables, is the
	// one that closed
	reached := pv.reached
	require.Len(t, reached, res.AbstractStates)
	pv.frozen = true
	var missed error
	for n := 1; n <= upTo && missed == nil; n++ {
		_, f, err := pv.explicit(n, func(c *model.Census, g ghosts) {
			if missed != nil {
				return
			}
			a, err := pv.abstractOf(pv.programs[n], c, g, pv.cap, true)
			if err != nil {
				missed = err
				return
			}
			if !reached[a.key()] {
				missed = fmt.Errorf("a state of %d threads abstracts to no abstract state: %v", n, a)
			}
		})
		require.NoError(t, err)
		require.Nil(t, f)
	}
	return missed
}

// The proof's claim, checked where the explicit search can: every state
// of 1..6 threads lies in the abstraction, and explore's search verifies
// each N from 1 to 8 (merged and proposed under gil and gil-breaker,
// global-lock under gil, where it needs Cap 1: SWAPCHECK_LONG=1 runs the
// five, about 50 s; the default one of them, merged under
// gil-breaker, the README's world for every N).
func TestEveryNCoversExplicitStates(t *testing.T) {
	upTo, worlds := 6, []string{"merged/gil-breaker"}
	if testenv.Long() {
		worlds = []string{"merged/gil", "merged/gil-breaker", "global-lock/gil", "proposed/gil", "proposed/gil-breaker"}
	}
	for _, world := range worlds {
		t.Run(world, func(t *testing.T) {
			name, mode, _ := strings.Cut(world, "/")
			p, err := Lookup(name)
			require.NoError(t, err)
			a, err := model.ParseAtomicity(mode)
			require.NoError(t, err)
			require.NoError(t, coveredEveryN(t, EveryNConfig{Protocol: p, Shape: scenario.DefaultShape, Atomicity: a}, upTo))
			for n := 1; n <= 8; n++ {
				sh := scenario.DefaultShape
				sh.Threads = n
				sc, err := sh.Build()
				require.NoError(t, err)
				rep, err := Explore(Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: StrategyAuto})
				require.NoError(t, err)
				require.Equal(t, sched.Verified, rep.Result.Verdict, "%d threads: %v", n, rep.Result.Failure)
			}
		})
	}
}

// A proof that never lets a many class fall back to Cap misses states,
// and the coverage check says so.
func TestEveryNBrokenIsCaught(t *testing.T) {
	p, err := Lookup("merged")
	require.NoError(t, err)
	cfg := EveryNConfig{Protocol: p, Shape: scenario.DefaultShape, Atomicity: model.GIL, broken: brokenNoFall}
	require.Error(t, coveredEveryN(t, cfg, 4))
}
