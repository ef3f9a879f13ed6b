"""The report in a real browser: Debian's headless Chromium, driven over the DevTools protocol.

Every section is found, the screenshot is not blank, nothing is logged as an error, nothing is
fetched from the network, injected script and markup stay text, and the tables sort, filter,
page and expand.
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import sample
import synthetic
from matplotlib import image as mpimg

from sqlsrv2tidb.report.render import render_report

SECTIONS = ["summary", "schema", "workload", "replay", "deployment", "plan"]
FILTER = ("(() => { const i = document.querySelector('#queries').previousElementSibling.querySelector('input');"
          " i.value = %s; i.dispatchEvent(new Event('input')); })()")


def _pixels(png: bytes) -> np.ndarray:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return mpimg.imread(io.BytesIO(png), format="png")[..., :3]


def _open(chromium, out: Path) -> None:
    chromium.log.console.clear()
    chromium.log.exceptions.clear()
    chromium.log.log_entries.clear()
    chromium.log.requests.clear()
    chromium.open(out / "report.html")
    assert chromium.evaluate("document.documentElement.getAttribute('data-report-ready')") == "1"


def test_report_shows_every_section_with_no_errors_and_no_network(chromium, keywords_dir):
    render_report(keywords_dir)
    _open(chromium, keywords_dir)
    found = chromium.evaluate("Array.from(document.querySelectorAll('main > section')).map(s => s.id)")
    assert found == SECTIONS
    for section in SECTIONS:
        box = chromium.evaluate(f"JSON.stringify(document.getElementById('{section}').getBoundingClientRect())")
        assert json.loads(box)["height"] > 50 and json.loads(box)["width"] > 500, section
    assert chromium.evaluate("document.querySelectorAll('figure.chart svg').length") == 3
    assert chromium.log.errors == []
    assert chromium.log.requests == [(keywords_dir / "report.html").resolve().as_uri()]  # no CDN, no fonts, nothing
    pixels = _pixels(chromium.screenshot())
    assert pixels.shape[:2] == (900, 1280)
    assert pixels.std() > 0.05  # not a blank page
    assert (pixels.min(axis=2) < 0.9).mean() > 0.02  # a fair share of the viewport is ink
    reds = ((pixels[..., 0] > 0.6) & (pixels[..., 1] < 0.3) & (pixels[..., 2] < 0.3)).sum()
    assert reds > 200  # the "Not ready" verdict is drawn in red
    chromium.evaluate("document.getElementById('workload').scrollIntoView()")
    assert _pixels(chromium.screenshot()).std() > 0.05


def test_injected_script_and_markup_stay_text(chromium, hostile_dir):
    render_report(hostile_dir)
    page = (hostile_dir / "report.html").read_text()
    assert sample.PAYLOAD not in page and sample.MARKUP_NAME not in page  # escaped in the file itself
    _open(chromium, hostile_dir)
    # Open everything the user could open: each hidden detail row, every page, every <details>.
    chromium.evaluate("document.querySelectorAll('button.toggle').forEach(b => b.click());"
                      "document.querySelectorAll('details').forEach(d => d.open = true);"
                      "document.querySelectorAll('.controls button').forEach(b => { if (b.textContent === 'Show all') b.click(); });")
    assert chromium.evaluate("typeof window.__pwned") == "undefined"
    assert chromium.evaluate("document.scripts.length") == 1
    assert chromium.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    styles = "Array.from(document.querySelectorAll('style')).filter(s => !s.closest('svg')).length"
    assert chromium.evaluate(styles) == 1  # the page's own, in <head>
    assert chromium.evaluate("Array.from(document.querySelectorAll('style')).some(s => s.textContent.includes('display:none'))") is False
    assert chromium.evaluate("getComputedStyle(document.body).display") == "block"
    assert chromium.evaluate("document.title") == f"Migration report: {sample.STYLE_NAME}"
    assert chromium.evaluate("Array.from(document.querySelectorAll('main > section')).map(s => s.id)") == SECTIONS
    text = chromium.evaluate("document.body.innerText")
    assert sample.PAYLOAD in text and sample.MARKUP_NAME in text  # shown, as text
    shown = chromium.evaluate("Array.from(document.querySelectorAll('pre code')).filter(c => c.textContent.includes("
                              + json.dumps(sample.PAYLOAD) + ")).length")
    assert shown >= 2  # the query's SQL Server and TiDB text, side by side
    assert chromium.log.errors == []  # a blocked inline script would be reported here by the CSP
    assert _pixels(chromium.screenshot()).std() > 0.05


def test_tables_page_filter_sort_expand_and_follow_links(chromium, tmp_path):
    out = synthetic.synthetic_out(tmp_path / "big", tables=40, classes=120, intervals=3)
    render_report(out)
    _open(chromium, out)
    visible = "document.querySelectorAll('#queries > tbody:not([hidden])').length"
    assert chromium.evaluate("document.querySelectorAll('#queries > tbody').length") == 120
    assert chromium.evaluate(visible) == 25
    count = "document.querySelector('#queries').previousElementSibling.querySelector('.count').textContent"
    assert chromium.evaluate(count) == "page 1 of 5 · 120 rows"
    chromium.evaluate("Array.from(document.querySelector('#queries').previousElementSibling.querySelectorAll('button'))"
                      ".find(b => b.textContent.startsWith('Next')).click()")
    assert chromium.evaluate(count) == "page 2 of 5 · 120 rows"
    # Sort by executions, ascending on the second click: the first visible row is the smallest.
    executions = "Array.from(document.querySelectorAll('#queries > tbody:not([hidden]) tr.head td:nth-child(4)')).map(td => +td.dataset.sort)"
    chromium.evaluate("document.querySelectorAll('#queries thead th')[3].click()")
    desc = chromium.evaluate(executions)
    assert desc == sorted(desc, reverse=True) and len(desc) == 25
    chromium.evaluate("document.querySelectorAll('#queries thead th')[3].click()")
    asc = chromium.evaluate(executions)
    assert asc == sorted(asc) and asc[0] <= desc[-1]
    # Filter: only matching items remain, paging restarts.
    target = chromium.evaluate("document.querySelector('#queries > tbody:last-of-type code').textContent")
    chromium.evaluate(FILTER % json.dumps(target))
    chromium.evaluate("new Promise(r => setTimeout(r, 400))")
    assert chromium.evaluate(visible) == 1
    assert chromium.evaluate(count) == "page 1 of 1 · 1 of 120 rows match"
    # Expand: the hidden detail row with the SQL side by side opens.
    chromium.evaluate("document.querySelector('#queries > tbody:not([hidden]) button.toggle').click()")
    assert chromium.evaluate("document.querySelector('#queries > tbody:not([hidden]) tr.detail').hidden") is False
    assert chromium.evaluate("document.querySelectorAll('#queries > tbody:not([hidden]) figure.sql').length") == 2
    # A link to a class on another page brings that page up and opens the class.
    chromium.evaluate(FILTER % '""')
    chromium.evaluate("new Promise(r => setTimeout(r, 400))")
    anchor = chromium.evaluate("document.querySelector('#queries > tbody:last-of-type').id")
    chromium.evaluate(f"location.hash = '#{anchor}'")
    chromium.evaluate("new Promise(r => setTimeout(r, 100))")
    assert chromium.evaluate(f"document.getElementById('{anchor}').hidden") is False
    assert chromium.evaluate(f"document.querySelector('#{anchor} tr.detail').hidden") is False
    assert chromium.log.errors == []


def _pdf_text(chromium, tmp_path: Path) -> str:
    """Print the open page as Chromium prints it (beforeprint, print media) and read the PDF's text back.

    Whitespace is dropped: table cells wrap anywhere on paper, so needles are compared without it.
    """
    pdf = tmp_path / "printed.pdf"
    pdf.write_bytes(base64.b64decode(chromium.call("Page.printToPDF", {}, session=True)["data"]))
    done = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True)
    return re.sub(r"\s+", "", done.stdout)


def _printed(needle: str, text: str) -> bool:
    return re.sub(r"\s+", "", needle) in text


def test_print_shows_every_row_and_every_detail_and_hides_the_controls(chromium, tmp_path):
    assert shutil.which("pdftotext"), "pdftotext is missing: scripts/test installs Debian's poppler-utils"
    out = synthetic.synthetic_out(tmp_path / "big", tables=40, classes=60, intervals=3)
    render_report(out)
    _open(chromium, out)
    doc = sample.read_json(out / "assessment.json")
    last_query = doc["queries"][-1]  # the 60th class by executions: page 3 of the screen's table
    assert chromium.evaluate(f"document.getElementById('q-{last_query['id']}').hidden") is True
    closed = "document.querySelectorAll('details:not([open])').length"
    before = chromium.evaluate(closed)
    assert before >= 3  # the DDL files, the topology and the method notes start closed
    text = _pdf_text(chromium, tmp_path)
    assert chromium.evaluate(closed) == before  # afterprint closed again what beforeprint opened
    # Rows beyond the first page of 25: the 60th query class, the 39th and 40th tables.
    for needle in (last_query["id"], "dbo.table_0038", "sales.table_0039", "finding 39 about table_0039"):
        assert _printed(needle, text), needle
    # Detail rows (a class's SQL side by side, a table's DDL) and closed <details> (a ddl/ file, topology.yaml, a method).
    for needle in (last_query["source_sql"][:60], (last_query["target_sql"] or "")[:60], "PRIMARY KEY (`c00_39`)",
                   "CREATE INDEX `ix_39` ON `t0039`", "tidb_servers:", "Each finding costs its rule"):
        assert _printed(needle, text), needle
    for control in ("Filter these", "Next ›", "Download topology.yaml"):
        assert not _printed(control, text), control
    assert chromium.log.errors == []
    chromium.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    try:
        assert chromium.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
        assert chromium.evaluate("getComputedStyle(document.getElementById('schema')).breakBefore") == "page"
        assert chromium.evaluate(f"getComputedStyle(document.getElementById('q-{last_query['id']}')).display") == "table-row-group"
    finally:
        chromium.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)


def test_topology_link_downloads_the_yaml_offline(chromium, keywords_dir, tmp_path):
    render_report(keywords_dir)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    chromium.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads), "eventsEnabled": True})
    _open(chromium, keywords_dir)
    chromium.evaluate("document.querySelector('a.button[download]').click()")
    for _ in range(20):
        if any(e["method"] == "Browser.downloadProgress" and e["params"].get("state") == "completed" for e in chromium.events):
            break
        chromium.wait_for("Browser.downloadProgress", timeout=5)
    saved = downloads / "topology.yaml"
    assert saved.read_text() == (keywords_dir / "topology.yaml").read_text()
    assert chromium.log.errors == [] and len(chromium.log.requests) == 1  # a data: URI, no request
