package sched

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A search told to end (Limits.Cancel) does not wait for a large grow of
// its visited set: a grow asked for then is skipped, one being prepared
// is given up, and so is one being rehashed. The set stays a set (every
// key new to one add exactly, none lost), what was given up is given
// back, and the table never fills: once it has no room left for the
// users' last keys, it grows after all.
//
// The table of 256K entries asks to grow at 180,224 keys (eleven
// sixteenths), and the room abandon asks for with two users, 2 *
// PollEvery * 3 keys below fifteen sixteenths, lasts until 221,184; with
// one user, until 229,376.
func TestVisitedSetAbandonsGrowsWhenCancelled(t *testing.T) {
	const small, big = 1 << 18, 1 << 20 // the table, and the one it grows into
	for _, kind := range []testKeys{wordKeys, slotKeys} {
		for _, users := range []int{1, 2} {
			for _, when := range []string{"from the start", "while preparing", "while rehashing"} {
				t.Run(fmt.Sprintf("%v/%d users/%s", kind, users, when), func(t *testing.T) {
					var cancelled, rehashing atomic.Bool
					var s *visitedSet
					cancel := func() bool {
						if j := s.job.Load(); j != nil && j.new.len() == big {
							rehashing.Store(true) // asked by a rehash into big
							if when == "while rehashing" && j.finished.Load() >= 2 {
								cancelled.Store(true) // latched once two of its parts are copied
							}
						}
						return cancelled.Load()
					}
					var preparedBig atomic.Int64
					prepareHookForTest = func(g *visitedTable) {
						if g.len() == big {
							preparedBig.Add(1)
							if when == "while preparing" {
								cancelled.Store(true)
							}
						}
					}
					defer func() { prepareHookForTest = nil }()
					s = newVisitedSet(users, cancel)
					cancelled.Store(when == "from the start")
					key := kind.key(0)

					addAll(t, s, users, 0, 200000, key)
					require.True(t, cancelled.Load(), "never cancelled")
					require.Equal(t, small, s.tab.Load().len(), "grew though cancelled")
					switch when {
					case "from the start":
						require.Zero(t, preparedBig.Load(), "a grow was prepared though cancelled")
					case "while preparing":
						require.Equal(t, int64(1), preparedBig.Load(), "the grow into the big table was prepared again")
						require.False(t, rehashing.Load(), "the grow was given up in its rehash, not as it was prepared")
					case "while rehashing":
						require.Equal(t, int64(1), preparedBig.Load(), "the grow into the big table was prepared again")
					}
					require.Equal(t, 1, mappedTables(s), "an abandoned table is still mapped")

					// No room left: the grow goes ahead, cancelled or not.
					addAll(t, s, users, 200000, 280000, key)
					require.Equal(t, big, s.tab.Load().len())
					u := s.join()
					for k := range 280000 {
						require.False(t, u.add(key(k)), "key %d lost", k)
					}
					u.leave()
					require.Equal(t, 280000, s.tab.Load().stored())
					s.free()
				})
			}
		}
	}
}

func (kind testKeys) String() string {
	return [...]string{"slot keys", "word keys", "mixed keys"}[kind]
}
