package bugreport_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/bugreport"
	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
)

const browserMissing = "no headless browser (chromium, chromium-browser or google-chrome on PATH): " +
	"install Debian's chromium (apt-get install -y chromium) to check trace.html as a browser shows it"

// headlessBrowser returns the path of a Chromium, or skips the test (fails
// it, when SWAPCHECK_REQUIRE_BROWSER is set).
func headlessBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Unavailable(t, "SWAPCHECK_REQUIRE_BROWSER", browserMissing)
	return ""
}

// dumpDOM opens the file in the headless browser and returns its DOM once
// the page has loaded and its scripts have run, serialized.
func dumpDOM(t *testing.T, browser, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// --allow-file-access-from-files: the harness reads its frames'
	// documents. --single-process starts in about 1.5 s where the usual
	// processes take 4 s here; Chromium does not promise it works, so a
	// failed run is retried without it.
	var failures []string
	for _, mode := range [][]string{{"--single-process"}, nil} {
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
			"--user-data-dir=" + t.TempDir(), "--dump-dom", "file://" + path}, mode...)
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, browser, args...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil && bytes.Contains(out, []byte("</html>")) {
			return string(out)
		}
		failures = append(failures, fmt.Sprintf("%s %s: %v, %d bytes of DOM: %s", browser, strings.Join(args, " "), err, len(out), stderr.String()))
	}
	t.Fatalf("no DOM from the browser:\n%s", strings.Join(failures, "\n"))
	return ""
}

// harness is a page that frames the pages under test, so that one browser
// start (a few seconds) serves them all: once they have loaded, it copies
// each frame's DOM, and that of the porcupine frame inside it, into a
// <pre> of its own, which --dump-dom serializes.
const harness = `<!doctype html>
<html><body>
%s
<script>
window.addEventListener("load", function () {
  var dump = function (id, doc) {
    var pre = document.createElement("pre");
    pre.id = id;
    pre.textContent = doc ? doc.documentElement.outerHTML : "no document";
    document.body.appendChild(pre);
  };
  document.querySelectorAll("iframe.page").forEach(function (f) {
    try {
      dump("dom-" + f.id, f.contentDocument);
      var inner = f.contentDocument.getElementById("porcupine");
      if (inner) { dump("dom-" + f.id + "-porcupine", inner.contentDocument); }
    } catch (e) {
      dump("dom-" + f.id + "-error", null);
    }
  });
});
</script>
</body></html>
`

// frameDOM is the DOM the harness copied from the frame id ("" if none).
func frameDOM(harnessDOM, id string) string {
	m := regexp.MustCompile(`(?s)<pre id="dom-` + regexp.QuoteMeta(id) + `">(.*?)</pre>`).FindStringSubmatch(harnessDOM)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestPageInBrowser opens trace pages in a headless Chromium and checks
// what it shows after the scripts ran: a lane per thread, every step in
// its thread's lane, the violating step marked (and made current by the
// page's script), the error a user sees, the scenario and the replay
// command; and, for the seed's race, porcupine's page of the history,
// opened on its own, drawing the operations (its script draws them from
// data, so the text is in the DOM only if it ran) with the failing read
// annotated. A page without a rejected history has no porcupine frame.
func TestPageInBrowser(t *testing.T) {
	browser := headlessBrowser(t)
	dir := t.TempDir()
	cases := []struct {
		name, protocol string
		porcupine      bool
	}{
		{"naive", "naive", true},
		{"refcount-del", "refcount-del", false},
	}
	type page struct {
		trace *check.Trace
		path  string
	}
	pages := map[string]page{}
	var frames strings.Builder
	for _, tc := range cases {
		rep := report(t, tc.protocol, "", model.GIL, nil)
		repro := "go run ./cmd/explore -protocol " + tc.protocol + " -strategy dfs -threads 2"
		tr, err := check.NewTrace(rep, repro)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, bugreport.WriteHTML(&b, rep, repro))
		path := filepath.Join(dir, tc.name+".html")
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		pages[tc.name] = page{tr, path}
		fmt.Fprintf(&frames, "<iframe class=\"page\" id=%q src=%q></iframe>\n", tc.name, tc.name+".html")
	}
	index := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(index, []byte(fmt.Sprintf(harness, frames.String())), 0o644))
	all := dumpDOM(t, browser, index)
	require.NotContains(t, all, `-error">`, "the harness cannot read a page's document")

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := pages[tc.name]
			d := frameDOM(all, tc.name)
			require.NotEmpty(t, d, "no DOM of %s", tc.name)
			text := html.UnescapeString(d)
			tr, v := p.trace, p.trace.Violation
			lanes := map[int]int{}
			for _, s := range tr.Steps {
				if _, ok := lanes[s.Thread]; !ok {
					lanes[s.Thread] = 0
				}
			}
			lane := 0
			for n, name := range tr.Threads {
				if _, ok := lanes[n]; !ok {
					continue
				}
				lanes[n] = lane
				require.Contains(t, d, fmt.Sprintf(`<th class="lane" data-lane="%d" data-thread="%s">%s</th>`, lane, name, name), "the lane of %s", name)
				lane++
			}
			require.GreaterOrEqual(t, lane, 3, "the host and two GPU threads")
			require.Equal(t, len(tr.Steps), strings.Count(d, `<tr id="step-`), "a row per step")
			for _, s := range tr.Steps {
				// the step's cell is in its thread's lane: that many cells before it
				row := regexp.MustCompile(fmt.Sprintf(`(?s)<tr id="step-%d" data-thread="%s"[^>]*>(.*?)</tr>`, s.Step, regexp.QuoteMeta(s.ThreadName))).FindStringSubmatch(d)
				require.NotNil(t, row, "step %d", s.Step)
				require.Contains(t, row[1], fmt.Sprintf(`<td class="cell" data-lane="%d"`, lanes[s.Thread]), "step %d in %s's lane", s.Step, s.ThreadName)
				require.Contains(t, html.UnescapeString(row[1]), s.Text, "step %d", s.Step)
			}
			last := len(tr.Steps)
			require.Regexp(t, fmt.Sprintf(`<tr id="step-%d" data-thread="%s" class="violating current">`, last, v.Thread), d,
				"the violating step marked, and made current by the page's script")
			require.Contains(t, text, fmt.Sprintf("step %d of %d, thread %s: the violating step", last, last, v.Thread), "the script's step line")
			require.Contains(t, text, "!! "+v.Kind)
			require.Contains(t, text, v.Message)
			if tc.protocol == "naive" {
				require.Contains(t, text, "AttributeError: tid=[1, 0, 0] ctaid=[0, 0, 0]: module 'numba.cuda' has no attribute 'local'", "the error a user sees")
			}
			require.Contains(t, text, tr.Scenario.Text)
			require.Contains(t, text, tr.Replay)
			if !tc.porcupine {
				require.NotContains(t, d, `<iframe id="porcupine"`, "porcupine accepts this history")
				return
			}
			require.Regexp(t, `<iframe id="porcupine"[^>]* style="height: \d+px;"`, d, "the frame sized to porcupine's page by the script, once it loaded")
			lin := frameDOM(all, tc.name+"-porcupine")
			for _, op := range []string{"enter dev1", "exit dev1", "read dev1.cuda -&gt; swapped", "read dev1.cuda -&gt; real", "!! " + v.Kind} {
				require.Regexp(t, `<text[^>]*>`+regexp.QuoteMeta(op)+`</text>`, lin, "porcupine draws %q", op)
			}
		})
	}
}
