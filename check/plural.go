package check

import "fmt"

// Count renders a count with its noun in the right number: "1 preemption",
// "2 preemptions". noun is the singular; the plural adds "s".
func Count[N int | int64](n N, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
