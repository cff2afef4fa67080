package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"swapcheck/check"
)

// defaultCorpus is where -corpus looks unless told otherwise: the golden
// traces, every buggy variant's known counterexamples, as seen from the
// repository's root (where the README's commands run).
const defaultCorpus = "check/testdata/golden"

func registerCorpusFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.corpus, "corpus", defaultCorpus, "before searching, replay the known counterexamples, the trace.json files in `DIR`, of the same protocol and atomicity on the scenario; the first that ends in a violation is reported at once, and the search runs only when none does (-corpus='': no corpus; the default is skipped where it does not exist; never for a -shard part)")
}

// readCorpus reads the corpus -corpus names (nil for none): a directory
// given that cannot be read is bad input; the default one, absent where
// explore does not run from the repository's root, is no corpus.
func readCorpus(o *options) (*check.Corpus, error) {
	if o.corpus == "" || o.shard != "" {
		return nil, nil
	}
	c, err := check.ReadCorpus(o.corpus)
	if err != nil {
		if !o.set["corpus"] {
			if _, serr := os.Stat(o.corpus); errors.Is(serr, fs.ErrNotExist) {
				return nil, nil
			}
		}
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
