"""The HTML viewer in a real headless browser: Debian's chromium driven by Playwright (its own
browser downloads are not needed). Clicks a node, reads the side panel, searches, zooms, pans,
and takes a screenshot. Skips, saying why, where Playwright, chromium or graphviz is missing;
CI installs all three."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from tests.command_line import invoke

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

CHROMIUM = os.environ.get("EXPLORER_CHROMIUM") or next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None
)
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot program is not installed"),
]
# Headless, and quiet: this machine's network is closed, and chromium's background services
# would otherwise try it at every start.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer")
    page_path = folder / "conv2d.html"
    result = invoke(
        ["trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--format", "html", "-o", str(page_path)]
    )
    assert result.exit_code == 0, result.output
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        requests, errors = [], []
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_path.as_uri())
        yield page, page_path, requests, errors
        browser.close()


def view_box(page) -> list[float]:
    return [float(part) for part in page.get_attribute("#canvas svg", "viewBox").split()]


def test_the_page_is_self_contained(viewer):
    _page, page_path, requests, errors = viewer
    html = page_path.read_text(encoding="utf-8")
    assert re.search(r"<(script|link|img)\b[^>]*\b(src|href)=", html) is None
    assert requests == [page_path.as_uri()]  # nothing fetched but the page itself
    assert errors == []


def test_clicking_a_node_shows_its_name_location_and_source(viewer):
    page, *_ = viewer
    page.click("#zoom-fit")  # the page opens on the first path's start: all of it, to reach the node
    page.click("#n13")  # at::native::_convolution
    assert page.inner_text("#panel .name") == "_convolution"
    assert page.inner_text("#panel .qname") == "at::native::_convolution"
    assert page.inner_text("#panel .kind") == "function · ATen C++"
    assert page.inner_text("#panel .location") == "aten/src/ATen/native/Convolution.cpp:228"
    link = page.get_attribute("#panel .location a", "href")
    assert link.startswith("file:///") and link.endswith("/sample_repo/aten/src/ATen/native/Convolution.cpp")
    snippet = page.inner_text("#panel .snippet").splitlines()
    assert snippet[0] == "228Tensor _convolution(const Tensor& input_r, const Tensor& weight_r,"
    assert snippet[-1] == "... (48 more lines)"
    assert page.get_attribute("#n13", "class") == "node selected"


def test_search_highlights_the_matching_nodes(viewer):
    page, *_ = viewer
    page.fill("#search", "split_batch")
    assert page.inner_text("#matches") == "1 match"
    assert page.eval_on_selector_all("g.node.match", "found => found.map(g => g.id)") == ["n18"]
    page.press("#search", "Enter")  # centres the match and shows it in the panel
    assert page.inner_text("#panel .qname") == "at::native::split_batch_dim_to_32bit_out"
    page.fill("#search", "cudnnconvolutionforward")
    assert page.inner_text("#matches") == "1 match"
    page.fill("#search", "")
    assert page.inner_text("#matches") == ""
    assert page.eval_on_selector_all("g.node.match", "found => found.length") == 0


def test_the_page_opens_on_the_first_path_from_its_start(viewer):
    page, page_path, *_ = viewer
    page.goto(page_path.as_uri())  # as it opens, whatever the tests before did
    opened = view_box(page)
    # the start (Conv2d, conv.py:187) is in the window, the vendor call at the path's end
    # (20 hops down) is not yet, and the drawing is shown larger than fitted whole
    inside = page.evaluate(
        """(ids) => ids.map((id) => {
        const svg = document.querySelector('#canvas svg').getBoundingClientRect();
        const box = document.getElementById(id).getBoundingClientRect();
        return box.top >= svg.top && box.bottom <= svg.bottom; })""",
        ["n0", _node_named(page, "cudnnConvolutionForward")],
    )
    page.click("#zoom-fit")
    whole = view_box(page)
    assert opened[2] < whole[2] * 0.8 and inside == [True, False]


def _node_named(page, name: str) -> str:
    return page.evaluate(
        """(name) => Object.entries(JSON.parse(document.getElementById('explorer-data').textContent))
        .find(([id, node]) => node.name === name)[0]""",
        name,
    )


def test_zoom_and_pan_move_the_view(viewer, tmp_path):
    page, *_ = viewer
    page.click("#zoom-fit")
    whole = view_box(page)
    page.click("#zoom-in")
    zoomed = view_box(page)
    assert zoomed[2] == pytest.approx(whole[2] * 0.8) and zoomed[3] == pytest.approx(whole[3] * 0.8)
    page.mouse.move(400, 400)
    page.mouse.down()
    page.mouse.move(500, 450, steps=5)
    page.mouse.up()
    panned = view_box(page)
    assert panned[0] < zoomed[0] and panned[1] < zoomed[1] and panned[2:] == zoomed[2:]
    page.click("#zoom-fit")
    assert view_box(page) == whole
    shot = tmp_path / "viewer.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
