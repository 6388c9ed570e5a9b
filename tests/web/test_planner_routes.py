"""The 3D-parallelism planner page and its API twin."""

from __future__ import annotations

from fastapi.testclient import TestClient

from sysdrill.app.parallel_plan import ParallelPlanInput, plan_parallelism


def test_form_has_a_labelled_control_per_input(client: TestClient) -> None:
    page = client.get("/planner").text
    for name in ("tensor_parallel", "pipeline_parallel", "data_parallel", "zero_stage"):
        assert f'<label for="in-{name}">' in page and f'id="in-{name}"' in page
    assert 'data-testid="verdict"' not in page  # no result before it is run


def test_run_shows_the_plan_of_the_calculators(client: TestClient) -> None:
    page = client.get(
        "/planner", params={"run": "1", "tensor_parallel": "4", "data_parallel": "16"}
    ).text
    plan = plan_parallelism(ParallelPlanInput(tensor_parallel=4, data_parallel=16))
    assert f'data-testid="mfu">{plan.mfu * 100:.1f} %' in page
    assert f'data-testid="step-time">{plan.step_time_s:.3f} s' in page
    assert "Fits" in page and "Checkpoint every (Young / Daly)" in page


def test_calculators_index_links_the_planner(client: TestClient) -> None:
    assert 'href="/planner"' in client.get("/calculators").text


def test_api_returns_every_figure(client: TestClient) -> None:
    answer = client.post("/api/planner", json={"pipeline_parallel": 4, "zero_stage": 3})
    assert answer.status_code == 200
    body = answer.json()
    expected = plan_parallelism(ParallelPlanInput(pipeline_parallel=4, zero_stage=3)).to_dict()
    assert body["plan"] == expected
    assert body["inputs"]["zero_stage"] == 3


def test_bad_value_is_a_422_naming_the_input(client: TestClient) -> None:
    answer = client.post("/api/planner", json={"tensor_parallel": "many"})
    assert answer.status_code == 422
    assert "tensor_parallel" in answer.json()["error"]["message"]
    page = client.get("/planner", params={"run": "1", "zero_stage": "7"})
    assert page.status_code == 422


def test_unknown_input_and_unknown_accelerator_are_422(client: TestClient) -> None:
    assert client.post("/api/planner", json={"gpus": 8}).status_code == 422
    answer = client.get("/planner", params={"run": "1", "accelerator": "nope-9000"})
    assert answer.status_code == 422


def test_batch_that_does_not_split_is_a_422(client: TestClient) -> None:
    answer = client.post("/api/planner", json={"global_batch_sequences": 100})
    assert answer.status_code == 422
    assert "not a multiple" in answer.json()["error"]["message"]
