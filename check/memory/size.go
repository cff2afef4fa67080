package memory

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a number of bytes that reads and prints as people write it:
// 500MiB, 2GiB, 1GB, 1048576. It is a flag.Value.
type Size int64

// units are the suffixes ParseSize knows, longest first so that "MiB"
// is not read as "B" after a number "500Mi".
var units = []struct {
	suffix string
	bytes  int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize reads a size: a whole or decimal number and a unit (KiB,
// MiB, GiB, TiB, powers of 1024; KB, MB, GB, TB, powers of 1000; K, M,
// G, T as the binary ones; B or none, bytes). 0 is allowed (callers take
// it as no bound); a negative, empty or unknown size is an error.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.bytes
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("size %q has no number (want, for example, 500MiB or 2GiB)", s)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("size %q is negative", s)
		}
		if n > (1<<63-1)/mult {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f != f {
		return 0, fmt.Errorf("size %q is not a number and a unit (want, for example, 500MiB or 2GiB)", s)
	}
	if f < 0 {
		return 0, fmt.Errorf("size %q is negative", s)
	}
	if f*float64(mult) >= 1<<63 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(f * float64(mult)), nil
}

// String renders n as a flag's value: in the largest binary unit, as
// Format does, without the space (500MiB, 1.5GiB, 100B), so that a
// command line that repeats it needs no quotes.
func (n Size) String() string { return strings.ReplaceAll(Format(int64(n)), " ", "") }

// Set implements flag.Value.
func (n *Size) Set(s string) error {
	v, err := ParseSize(s)
	if err != nil {
		return err
	}
	*n = Size(v)
	return nil
}

// Format renders a number of bytes as Size does: one decimal at most,
// none when it is 0 (500 MiB, 1.5 GiB).
func Format(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes {
			v := strconv.FormatFloat(float64(n)/float64(u.bytes), 'f', 1, 64)
			return strings.TrimSuffix(v, ".0") + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
