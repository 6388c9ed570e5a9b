"""Calculators in the browser: forms from the registry, charts, the napkin box."""

from __future__ import annotations

import base64
import re

import pytest
from fastapi.testclient import TestClient


def _chart_svg(page: str) -> str:
    match = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert match, "no chart on the page"
    return base64.b64decode(match.group(1)).decode("utf-8")


def test_index_lists_every_calculator_and_the_napkin_box(client: TestClient) -> None:
    page = client.get("/calculators").text
    names = client.get("/api/calculators").json()["calculators"]
    assert len(names) >= 40
    for calc in names:
        assert f'href="/calculators/{calc["name"]}"' in page
    assert 'href="/calculators/napkin"' in page


def test_form_has_a_labelled_control_per_input(client: TestClient) -> None:
    page = client.get("/calculators/ring-allreduce").text
    for name in ("ranks", "message", "bandwidth", "latency", "link"):
        assert f'<label for="in-{name}">' in page
        assert f'id="in-{name}"' in page


def test_ring_allreduce_with_a_catalogue_link(client: TestClient) -> None:
    page = client.get(
        "/calculators/ring-allreduce",
        params={"run": "1", "ranks": "8", "message": "1GB", "bandwidth": "50GB/s"},
    ).text
    assert '<th scope="row">time</th><td>35 ms</td>' in page


def test_tree_allreduce_api(client: TestClient) -> None:
    response = client.post(
        "/api/calculators/tree-allreduce",
        json={"inputs": {"ranks": "8", "message": "1GB", "bandwidth": "50GB/s"}},
    )
    assert response.status_code == 200
    assert response.json()["calculator"] == "tree-allreduce"
    assert response.json()["outputs"]["time"]["unit"] == "second"


def test_roofline_plots_the_accelerator_with_the_kernel_marked(client: TestClient) -> None:
    page = client.get(
        "/calculators/roofline",
        params={"run": "1", "gpu": "h100-sxm", "dtype": "fp8", "intensity": "100"},
    ).text
    assert '<th scope="row">bound</th><td>memory-bound</td>' in page
    svg = _chart_svg(page)
    assert "your kernel: 100 FLOP/byte, 335 TFLOP/s" in svg
    assert "ridge point: 590.7 FLOP/byte" in svg


def test_roofline_offers_fp4_and_plots_the_blackwell_fp4_peak(client: TestClient) -> None:
    page = client.get("/calculators/roofline?run=1&gpu=b200&dtype=fp4&intensity=100").text
    assert '<option value="fp4" selected>fp4</option>' in page
    assert '<th scope="row">bound</th><td>memory-bound</td>' in page
    assert "ridge point: 1,125 FLOP/byte" in _chart_svg(page)


def test_memory_planner_draws_bars_and_says_whether_it_fits(client: TestClient) -> None:
    fits = client.get(
        "/calculators/training-memory",
        params={"run": "1", "params": "7B", "zero": "3", "gpus": "64", "gpu": "h100-sxm"},
    ).text
    assert 'data-testid="verdict">Fits<' in fits
    assert "optimizer states" in _chart_svg(fits)
    too_big = client.get(
        "/calculators/training-memory",
        params={"run": "1", "params": "70B", "zero": "0", "gpus": "8", "gpu": "h100-sxm"},
    ).text
    assert 'data-testid="verdict">Does not fit<' in too_big


@pytest.mark.parametrize(
    ("params", "kind"),
    [
        ({"run": "1", "ranks": "8"}, "UsageError"),
        ({"run": "1", "ranks": "x", "message": "1GB", "bandwidth": "1GB/s"}, "UsageError"),
        ({"run": "1", "ranks": "8", "message": "1 s", "bandwidth": "1GB/s"}, "UsageError"),
        ({"run": "1", "ranks": "8", "message": "1GB", "link": "warp-drive"}, "UsageError"),
    ],
)
def test_bad_inputs_are_422_never_500(
    client: TestClient, params: dict[str, str], kind: str
) -> None:
    page = client.get("/calculators/ring-allreduce", params=params)
    assert page.status_code == 422
    api = client.post(
        "/api/calculators/ring-allreduce",
        json={
            "inputs": {k: v for k, v in params.items() if k not in ("run", "link")},
            "link": params.get("link"),
        },
    )
    assert api.status_code == 422
    assert api.json()["error"]["type"] == kind


def test_unknown_calculator_is_404(client: TestClient) -> None:
    assert client.get("/calculators/warp-drive").status_code == 404
    response = client.post("/api/calculators/warp-drive", json={})
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "NotFound"


def test_napkin_box_marks_each_claim(client: TestClient) -> None:
    text = "8 * 80 GB = 600 GB\n100 MB / (50 GB/s) = 2 ms\nthe cluster is big"
    page = client.post("/calculators/napkin", data={"text": text}).text
    assert '<li data-verdict="wrong"><span class="mark bad">wrong</span> line 1' in page
    assert "computed 640 GB" in page
    assert '<li data-verdict="ok"><span class="mark ok">right</span> line 2' in page
    claims = client.post("/api/napkin/check", json={"text": text}).json()["claims"]
    assert [(c["line"], c["verdict"]) for c in claims] == [(1, "wrong"), (2, "ok")]


def test_napkin_box_refuses_oversized_text(client: TestClient) -> None:
    response = client.post("/api/napkin/check", json={"text": "1 = 1\n" * 5000})
    assert response.status_code == 422
