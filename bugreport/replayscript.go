package bugreport

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"swapcheck/check"
	"swapcheck/pyreplay"
)

// maxIssueBody is the longest issue body GitHub takes, in characters: a
// report longer than this with its replay inline carries it as an
// attachment instead.
const maxIssueBody = 65536

// packedScript is the replay.py that -emit-python writes for a report's
// trace, packed to paste: the full script runs to about 110 kB (the
// replay machinery and the stand-in simulator), more than an issue body
// takes, and zlib and base64 bring it to about a third.
type packedScript struct {
	size   int
	sha256 string
	block  string // the shell command that unpacks it as replay.py
}

// packScript packs r's replay script; an *pyreplay.Unsupported error
// says what the replay cannot force.
func packScript(r *check.Report) (*packedScript, error) {
	var script bytes.Buffer
	if err := pyreplay.Emit(&script, r); err != nil {
		return nil, err
	}
	return pack(script.Bytes())
}

// pack packs a replay script as a shell command that unpacks it.
func pack(script []byte) (*packedScript, error) {
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(script); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	enc := base64.StdEncoding.EncodeToString(z.Bytes())
	var b strings.Builder
	b.WriteString("/usr/bin/python3 - <<'EOF'\n")
	b.WriteString("import base64, hashlib, zlib\n")
	b.WriteString("data = zlib.decompress(base64.b64decode(\"\"\"\n")
	for len(enc) > 0 {
		n := min(len(enc), 76)
		b.WriteString(enc[:n] + "\n")
		enc = enc[n:]
	}
	b.WriteString("\"\"\"))\n")
	b.WriteString("open(\"replay.py\", \"wb\").write(data)\n")
	b.WriteString("print(\"replay.py:\", len(data), \"bytes, sha256\", hashlib.sha256(data).hexdigest())\n")
	b.WriteString("EOF\n")
	sum := sha256.Sum256(script)
	return &packedScript{size: len(script), sha256: fmt.Sprintf("%x", sum), block: b.String()}, nil
}

// writeDetails writes the packed script's unpacking command, folded.
func (s *packedScript) writeDetails(b *strings.Builder) {
	b.WriteString("<details><summary>replay.py, packed</summary>\n\n")
	b.WriteString(fence("sh", s.block))
	b.WriteString("\n</details>\n\n")
}

// replayCommands are the commands that run the replay on numba's
// simulator (or, where numba cannot run it, the stand-in's), as the
// report gives them, each with the sentence that says where it runs.
func replayCommands(r *check.Report, protocol string, u upstream) string {
	var b strings.Builder
	switch {
	case r.Config.Protocol.Dispatches:
		b.WriteString("Run it with CPython 3.11 (no numba needed: no released numba has this fix, so the script runs on the stand-in simulator it carries, swapcheck's transcription of numba-cuda's launch code, with the fix in place):\n\n")
		b.WriteString(fence("sh", "python3 replay.py\n"))
		b.WriteString("\nIt prints each forced turn's outcome and what the threads saw, and exits 1 when the violation happened again, 0 when it did not, 2 when a turn could not be forced (`docs/replay.md` in swapcheck says how the script forces the interleaving).\n")
		return b.String()
	case protocol == "naive":
		b.WriteString("Run it on numba's own CUDA simulator, whose swap is this one in numba (Debian's `python3-numba`, 0.56.4, is for `/usr/bin/python3`) and in numba-cuda before 0.25:\n\n")
		b.WriteString(fence("sh", "/usr/bin/python3 replay.py --target numba\n"))
	default:
		if u.commit != "" {
			fmt.Fprintf(&b, "Run it where the installed simulator's `swapped_cuda_module` is numba-cuda %s's (the script compares it with this version's by bytecode, and says so and exits 2 when it is another):\n\n", u.commit)
			b.WriteString(fence("sh", "python3 replay.py --target numba\n"))
			b.WriteString("\nor on any other numba's simulator (Debian's `python3-numba`, 0.56.4, is for `/usr/bin/python3`; its own swap is `naive`), with this version's swap put in place of the installed one (`--swap rendition`; the launch machinery stays numba's):\n\n")
		} else {
			b.WriteString("Run it on numba's simulator (Debian's `python3-numba`, 0.56.4, is for `/usr/bin/python3`), with this version's swap put in place of the installed one (`--swap rendition`; the launch machinery stays numba's):\n\n")
		}
		b.WriteString(fence("sh", "/usr/bin/python3 replay.py --target numba --swap rendition\n"))
	}
	b.WriteString("\nIt prints each forced turn's outcome and what the threads saw, and exits 1 when the violation happened again, 0 when it did not, 2 when a turn could not be forced; `python3 replay.py` alone runs it on the stand-in simulator that the script carries, where no numba is installed (`docs/replay.md` in swapcheck says how the script forces the interleaving).\n")
	return b.String()
}

// noReplay is the one sentence a report gives when the replay cannot
// force its trace.
func noReplay(err error) (string, bool) {
	var un *pyreplay.Unsupported
	if !errors.As(err, &un) {
		return "", false
	}
	return fmt.Sprintf("There is no Python replay of this trace: %s.\n", err), true
}
