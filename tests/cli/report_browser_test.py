#!/usr/bin/env python3
"""`fabdiag report --format html` in a real browser: headless Chromium renders the page of real
results (tests/fixtures/report: case 028's pairwise, a bench and a pairwise baseline diff, a
triage over collected files), the browser's own DOM (querySelector after layout) must show the
heatmap with its suspect, the busbw curves with the baseline band, the failing nodes and link,
and a screenshot must be a real picture (PNG, not tiny, many colours). A second page, whose
host names carry markup and a <script> tag, must give the browser no script element and show
the name as text.

Usage: report_browser_test.py FABDIAG_BINARY. Exit 77 (ctest: skipped) without chromium."""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(SRC, "tests", "fixtures", "report")

# Run in the page by Chromium (on a copy without the page's CSP, which forbids scripts): the
# answers are the browser's DOM after parsing and layout, written into the DOM it dumps.
PROBE = r"""<script>
const q = s => document.querySelectorAll(s);
const box = e => { if (!e) return null; const r = e.getBoundingClientRect(); return [r.width, r.height]; };
const out = {
  heatmap: q('svg#pairwise-heatmap').length,
  heatmap_box: box(document.querySelector('svg#pairwise-heatmap')),
  heatmap_ns: document.querySelector('svg#pairwise-heatmap') ? document.querySelector('svg#pairwise-heatmap').namespaceURI : null,
  cells: q('svg#pairwise-heatmap rect.cell[data-src][data-dst]').length,
  hosts: Number((document.querySelector('svg#pairwise-heatmap') || {dataset: {}}).dataset.hosts || 0),
  suspect_cells: q('svg#pairwise-heatmap rect.cell.suspect').length,
  suspect_labels: Array.from(q('svg#pairwise-heatmap text.host.suspect.row-label')).map(e => e.textContent),
  curves: Array.from(q('svg.busbw-curve[data-collective]')).map(e => e.dataset.collective),
  curve_box: box(document.querySelector('svg.busbw-curve')),
  points: q('svg.busbw-curve circle.point').length,
  bands: q('svg.busbw-curve polygon.baseline-band').length,
  failing_nodes: Array.from(q('#nodes tr.node.fail[data-host]')).map(e => e.dataset.host),
  passing_nodes: q('#nodes tr.node.pass[data-host]').length,
  failing_links: Array.from(q('#links tr.link.fail[data-subject]')).map(e => e.dataset.subject),
  failing_checks: q('#checks tr.check.fail').length,
  findings: q('#findings tr.finding').length,
  chains: Array.from(q('#evidence-chain .chain[data-subject]')).map(e => e.dataset.subject),
  node_texts: Array.from(q('#nodes tr.node td:first-child')).map(e => e.textContent),
  heatmap_labels: Array.from(q('svg#pairwise-heatmap text.host.row-label')).map(e => e.textContent),
  scripts: q('script').length,
  imgs: q('img').length,
  fail_colour: (() => { const td = document.querySelector('#nodes tr.node.fail td.status');
                        return td ? getComputedStyle(td).backgroundColor : null; })(),
};
const pre = document.createElement('pre');
pre.id = 'dom-probe';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(chrome, profile, *args):
    cmd = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--hide-scrollbars", "--user-data-dir=" + profile, *args]
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        fail("chromium did not finish in 120 s: " + " ".join(cmd))


def png_pixels(path):
    """(width, height, set of distinct RGB colours sampled) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, width, height, colour_type = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour_type not in (2, 6):
                fail("unexpected PNG format: depth %d colour type %d" % (depth, colour_type))
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        if y % 4 == 0:
            for x in range(0, width, 4):
                colours.add(bytes(line[x * bpp:x * bpp + 3]))
        prev = line
    return width, height, colours


def render_page(fabdiag, inputs, page):
    r = subprocess.run([fabdiag, "report", *inputs, "--format", "html", "-o", page, "--title", "acceptance of rack 7"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False)
    if r.returncode != 1:
        fail("fabdiag report exit code %d, expected 1 (something failed); stderr: %s" % (r.returncode, r.stderr.decode()))


def probe(chrome, tmp, page, profile):
    """The DOM probe's answers for `page` (a copy without the CSP, the probe script appended)."""
    html = open(page, encoding="utf-8").read()
    probed = page + ".probed.html"
    with open(probed, "w", encoding="utf-8") as f:
        f.write(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html).replace("</body>", PROBE + "</body>"))
    dom = run_chromium(chrome, os.path.join(tmp, profile), "--window-size=1280,2000", "--dump-dom", "file://" + probed)
    m = re.search(r'<pre id="dom-probe">(.*?)</pre>', dom.stdout.decode("utf-8", "replace"), re.S)
    if not m:
        fail("chromium's DOM has no probe result; stderr: " + dom.stderr.decode("utf-8", "replace")[-2000:])
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    print("DOM of %s: %s" % (os.path.basename(page), json.dumps(got)))
    return got


def hostile_page(fabdiag, chrome, tmp):
    """Host names from files are untrusted: node01 renamed to markup with a <script> tag."""
    evil = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>"node01'
    def walk(v):
        if isinstance(v, str):
            return v.replace("node01", evil)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        return v
    src = os.path.join(tmp, "hostile.json")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(walk(json.load(open(os.path.join(FIX, "pairwise-one-slow-node.json"), encoding="utf-8"))), f)
    page = os.path.join(tmp, "hostile.html")
    render_page(fabdiag, [src], page)
    got = probe(chrome, tmp, page, "profile3")
    if got["scripts"] != 1 or got["imgs"] != 0:
        fail("a host name became an element: %d scripts, %d img" % (got["scripts"], got["imgs"]))
    if evil not in got["node_texts"] or evil not in got["failing_nodes"] or evil not in got["heatmap_labels"]:
        fail("the hostile host name is not shown as text in the nodes table and the heatmap: " + json.dumps(got))


def main():
    if len(sys.argv) != 2:
        fail("usage: report_browser_test.py FABDIAG_BINARY")
    fabdiag = sys.argv[1]
    chrome = chromium_binary()
    if not chrome:
        print("SKIPPED: chromium not installed (scripts/setup.sh installs it)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="fabdiag-report-browser-")
    try:
        page = os.path.join(tmp, "report.html")
        inputs = [os.path.join(FIX, f) for f in ("pairwise-one-slow-node.json", "baseline-diff-bench.json",
                                                  "baseline-diff-pairwise.json", "triage-from.json")]
        render_page(fabdiag, inputs, page)
        got = probe(chrome, tmp, page, "profile1")
        checks = [
            (got["heatmap"] == 1, "one svg#pairwise-heatmap"),
            (got["heatmap_ns"] == "http://www.w3.org/2000/svg", "the heatmap parsed as SVG"),
            (got["heatmap_box"] and got["heatmap_box"][0] > 100 and got["heatmap_box"][1] > 100, "the heatmap laid out"),
            (got["hosts"] == 7 and got["cells"] == 49, "7 x 7 heatmap cells (case 028)"),
            (got["suspect_cells"] == 12 and got["suspect_labels"] == ["node01"], "the pairwise suspect node01 marked"),
            (got["curves"] == ["all_reduce"], "a busbw curve for all_reduce"),
            (got["curve_box"] and got["curve_box"][0] > 100, "the curve laid out"),
            (got["points"] == 5, "the 5 sizes measured now, 1 MiB to 1 GiB"),
            (got["bands"] == 1, "the baseline band"),
            (sorted(got["failing_nodes"]) == ["gpu-node02", "gpu-node03", "node01"], "node01, gpu-node02, gpu-node03 fail"),
            (got["failing_links"] == ["node01<->node02", "node01<->node04", "node01<->node03"],
             "the slow node's pairs and the regressed link node01<->node03 fail"),
            (got["passing_nodes"] == 6, "passing nodes listed"),
            (got["failing_checks"] > 0 and got["findings"] > 0, "failing checks and findings listed"),
            ("node01" in got["chains"] and "gpu-node03" in got["chains"], "the suspects' evidence chains"),
            (got["scripts"] == 1, "the page itself carries no script (only the probe)"),
            (got["fail_colour"] == "rgb(244, 182, 182)", "the failing status cell styled by the inline CSS"),
        ]
        for ok, what in checks:
            if not ok:
                fail(what + ": " + json.dumps(got))
        hostile_page(fabdiag, chrome, tmp)
        shot = os.path.join(tmp, "report.png")
        s = run_chromium(chrome, os.path.join(tmp, "profile2"), "--window-size=1280,2400", "--screenshot=" + shot,
                         "file://" + page)
        if not os.path.exists(shot):
            fail("no screenshot; stderr: " + s.stderr.decode("utf-8", "replace")[-2000:])
        size = os.path.getsize(shot)
        width, height, colours = png_pixels(shot)
        reds = [c for c in colours if c[0] > 180 and c[1] < 120 and c[2] < 120]
        print("screenshot: %d bytes, %dx%d, %d colours sampled, %d red" % (size, width, height, len(colours), len(reds)))
        if size < 30000:
            fail("screenshot only %d bytes" % size)
        if (width, height) != (1280, 2400):
            fail("screenshot is %dx%d" % (width, height))
        if len(colours) < 50:
            fail("screenshot has only %d colours: blank page?" % len(colours))
        if not reds:
            fail("no red in the screenshot: the slow cells and failures are red")
        if os.environ.get("FABDIAG_KEEP_SCREENSHOT"):
            shutil.copy(shot, os.environ["FABDIAG_KEEP_SCREENSHOT"])
        print("report in chromium: heatmap, curves, failing node and link found")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
