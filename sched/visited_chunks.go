package sched

// Where the visited set keeps keys too long for a slot: chunks that
// double up to a fixed size, so that no state allocates and nothing moves
// as the set grows.

// chunks stores keys back to back in buffers that never move.
type chunks struct {
	bufs [][]byte
	held int64 // the buffers' capacity
}

const (
	inlineKey  = 28
	firstChunk = 1 << 14
	chunkSize  = 1 << 20
)

// store copies key into the last chunk, starting a new one when it is full.
// Chunks double from firstChunk up to chunkSize, so a small search does not
// allocate (and zero) a megabyte.
func (v *chunks) store(key []byte) (chunk, off uint32) {
	last := len(v.bufs) - 1
	if last < 0 || len(v.bufs[last])+len(key) > cap(v.bufs[last]) {
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(v.bufs[last]), chunkSize)
		}
		size = max(size, len(key))
		v.bufs = append(v.bufs, make([]byte, 0, size))
		v.held += int64(size)
		last++
	}
	off = uint32(len(v.bufs[last]))
	v.bufs[last] = append(v.bufs[last], key...)
	return uint32(last + 1), off
}
