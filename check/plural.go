package check

import (
	"fmt"
	"strings"
)

// Count renders a count with its noun in the right number: "1 preemption",
// "2 preemptions", "2 launches". noun is the singular; the plural adds
// "es" after s, x, ch and sh, else "s".
func Count[N int | int64](n N, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return fmt.Sprintf("%d %ses", n, noun)
		}
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
