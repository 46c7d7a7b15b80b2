//go:build race

package sim_test

// raceEnabled: under the race detector sync.Pool drops a quarter of what
// it is given (sync/pool.go), so the ioctl path's kdataPool allocates now
// and then, and allocation counts are only checked without it.
const raceEnabled = true
