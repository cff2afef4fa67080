package cli

import (
	"fmt"
	"io"

	"swapcheck/check"
)

// readCorpus reads the corpus -corpus names (nil for none, the default:
// a search searches, and its output does not depend on the directory it
// runs in); a directory that cannot be read is bad input.
func readCorpus(o *options) (*check.Corpus, error) {
	if o.corpus == "" || o.shard != "" {
		return nil, nil
	}
	c, err := check.ReadCorpus(o.corpus)
	if err != nil {
		return nil, usagef("-corpus: %v", err)
	}
	return c, nil
}

// corpusLines says on stderr what replaying the corpus did, and names
// the files it could not read.
func corpusLines(stderr io.Writer, rep *check.Report, c *check.Corpus) {
	if c != nil {
		for _, line := range c.Unread {
			fmt.Fprintf(stderr, "explore: corpus: left out %s\n", oneLine(line))
		}
	}
	if run := rep.CorpusRun; run != nil {
		for _, line := range run.Unreadable {
			fmt.Fprintf(stderr, "explore: corpus: left out %s\n", oneLine(line))
		}
		fmt.Fprintf(stderr, "explore: %s\n", oneLine(run.String()))
	}
}
