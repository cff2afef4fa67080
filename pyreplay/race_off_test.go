//go:build !race

package pyreplay_test

const raceEnabled = false
