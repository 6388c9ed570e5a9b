"""Diagram geometry: pipeline slots and their bubble, ring and tree steps, memory, roofline."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from sysdrill.content.models import Diagram, Item
from sysdrill.errors import ContentInvalid
from sysdrill.napkin.calculators._quantity import quantity
from sysdrill.napkin.calculators.collectives import ring_allreduce_time
from sysdrill.napkin.diagram_text import diagram_summary, diagram_text
from sysdrill.napkin.diagrams import (
    MemoryBreakdown,
    RingAllReduce,
    RooflineChart,
    TreeAllReduce,
    build_diagram,
    diagram_problems,
    item_diagram,
)
from sysdrill.napkin.pipeline_schedule import (
    PipelineSchedule,
    Schedule,
    Slot,
    simulate_schedule,
)
from sysdrill.napkin.templates import draw_template


def _draw(kind: str, **params: int | float | str) -> object:
    return build_diagram(Diagram(kind=kind, params=params))


def _assert_feasible(schedule: PipelineSchedule) -> None:
    """No device runs two slots at once, and every pass waits for its inputs."""
    for stage in range(schedule.stages):
        mine = sorted((s for s in schedule.slots if s.stage == stage), key=lambda s: s.start)
        for earlier, later in pairwise(mine):
            assert earlier.start + earlier.duration <= later.start + 1e-9
    ends: dict[tuple[str, int, int], float] = {}
    starts: dict[tuple[str, int, int], float] = {}
    for slot in schedule.slots:
        virtual = slot.chunk * schedule.stages + slot.stage
        ends[(slot.op, slot.microbatch, virtual)] = slot.start + slot.duration
        starts[(slot.op, slot.microbatch, virtual)] = slot.start
    last = schedule.stages * schedule.chunks - 1
    for (op, mb, virtual), start in starts.items():
        if op == "F" and virtual > 0:
            assert start >= ends[("F", mb, virtual - 1)] - 1e-9
        if op == "B":
            needed = ("F", mb, virtual) if virtual == last else ("B", mb, virtual + 1)
            assert start >= ends[needed] - 1e-9
        if op == "W":
            assert start >= ends[("B", mb, virtual)] - 1e-9


@pytest.mark.parametrize(
    ("stages", "microbatches"), [(1, 3), (2, 2), (4, 1), (4, 8), (4, 16), (8, 8), (8, 64)]
)
def test_1f1b_bubble_read_off_the_slots_is_the_closed_form(stages: int, microbatches: int) -> None:
    schedule = simulate_schedule(Schedule.ONE_F_ONE_B, stages=stages, microbatches=microbatches)

    expected = (stages - 1) / (microbatches + stages - 1)
    assert schedule.bubble_fraction == pytest.approx(expected, abs=1e-12)
    assert len(schedule.slots) == 2 * stages * microbatches
    _assert_feasible(schedule)


def test_1f1b_keeps_at_most_p_minus_s_microbatches_in_flight_on_stage_s() -> None:
    schedule = simulate_schedule(Schedule.ONE_F_ONE_B, stages=8, microbatches=64)

    for stage in range(8):
        events = sorted(
            (s.start, 1 if s.op == "F" else -1) for s in schedule.slots if s.stage == stage
        )
        in_flight = peak = 0
        for _, change in events:
            in_flight += change
            peak = max(peak, in_flight)
        assert peak == 8 - stage


@pytest.mark.parametrize(
    ("stages", "microbatches", "chunks"), [(4, 4, 2), (4, 8, 2), (2, 4, 3), (8, 32, 4), (8, 16, 4)]
)
def test_interleaved_bubble_is_divided_by_the_chunks_per_device(
    stages: int, microbatches: int, chunks: int
) -> None:
    schedule = simulate_schedule(
        Schedule.INTERLEAVED, stages=stages, microbatches=microbatches, chunks=chunks
    )

    expected = (stages - 1) / (chunks * microbatches + stages - 1)
    assert schedule.bubble_fraction == pytest.approx(expected, abs=1e-12)
    assert len(schedule.slots) == 2 * stages * microbatches * chunks
    _assert_feasible(schedule)


@pytest.mark.parametrize(("stages", "microbatches"), [(2, 2), (4, 4), (4, 8), (8, 16)])
def test_zb_h1_fills_two_thirds_of_the_1f1b_bubble(stages: int, microbatches: int) -> None:
    # With F, B and W of equal length, ZB-H1 idles (p-1) units where 1F1B idles 3(p-1).
    zero_bubble = simulate_schedule(Schedule.ZB_H1, stages=stages, microbatches=microbatches)
    plain = simulate_schedule(Schedule.ONE_F_ONE_B, stages=stages, microbatches=microbatches)

    assert zero_bubble.bubble_fraction == pytest.approx(
        (stages - 1) / (3 * microbatches + stages - 1), abs=1e-12
    )
    assert zero_bubble.makespan == pytest.approx(plain.makespan - 2 * (stages - 1))
    assert len(zero_bubble.slots) == 3 * stages * microbatches
    _assert_feasible(zero_bubble)


def test_stage_times_scale_the_timeline_but_not_the_bubble() -> None:
    schedule = simulate_schedule(
        Schedule.ONE_F_ONE_B, stages=4, microbatches=8, forward_time=10, backward_time=20
    )

    assert schedule.makespan == pytest.approx(330)
    assert schedule.bubble_fraction == pytest.approx(90 / 330)
    assert Slot(0, 0.0, 10.0, "F", 0, 0) in schedule.slots


def test_interleaving_needs_microbatches_in_multiples_of_the_stages() -> None:
    with pytest.raises(ContentInvalid, match="multiple of stages"):
        simulate_schedule(Schedule.INTERLEAVED, stages=4, microbatches=6, chunks=2)


@pytest.mark.parametrize("ranks", [2, 3, 4, 8, 16, 128])
def test_ring_sends_every_chunk_once_per_phase_in_2p_minus_2_steps(ranks: int) -> None:
    ring = _draw("ring-allreduce", ranks=ranks)
    assert isinstance(ring, RingAllReduce)

    assert len(ring.steps) == 2 * (ranks - 1)
    for step in ring.steps:
        assert sorted(step.chunks_sent) == list(range(ranks))
    # Each rank's reduce-scatter leaves it owning chunk (r+1) mod p, which the
    # all-gather then sends first.
    first_gather = ring.steps[ranks - 1]
    assert first_gather.chunks_sent == tuple((r + 1) % ranks for r in range(ranks))
    assert ring.sent_fraction_per_rank == pytest.approx(2 * (ranks - 1) / ranks)


def test_ring_time_matches_the_collectives_calculator() -> None:
    ring = _draw("ring-allreduce", ranks=16, message_gb=2.6, bandwidth_gb_per_s=100)
    assert isinstance(ring, RingAllReduce)
    calculated = ring_allreduce_time(
        ranks=16,
        message=quantity(2.6, "GB"),
        bandwidth=quantity(100, "GB/s"),
        latency=quantity(0, "s"),
    )

    assert ring.time_ms == pytest.approx(float(calculated.time.to("ms").magnitude))
    assert ring.time_ms == pytest.approx(48.75)


@pytest.mark.parametrize("ranks", [2, 5, 8, 32])
def test_tree_reduces_every_rank_once_then_broadcasts_back(ranks: int) -> None:
    tree = _draw("tree-allreduce", ranks=ranks)
    assert isinstance(tree, TreeAllReduce)
    rounds = math.ceil(math.log2(ranks))

    assert len(tree.steps) == 2 * rounds
    senders = [a for step in tree.steps[:rounds] for a, _ in step.edges]
    assert sorted(senders) == list(range(1, ranks))
    receivers = [b for step in tree.steps[rounds:] for _, b in step.edges]
    assert sorted(receivers) == list(range(1, ranks))


@pytest.mark.parametrize(
    ("stage", "per_gpu_gb"),
    [(0, 112.0), (1, 7 * (4 + 12 / 8)), (2, 7 * (2 + 14 / 8)), (3, 7 * 16 / 8)],
)
def test_memory_breakdown_follows_the_zero_stages(stage: int, per_gpu_gb: float) -> None:
    memory = _draw(
        "memory-breakdown", parameters_billion=7, zero_stage=stage, data_parallel=8, activation_gb=5
    )
    assert isinstance(memory, MemoryBreakdown)

    model_state = sum(p.gb for p in memory.parts if p.label != "activations")
    assert model_state == pytest.approx(per_gpu_gb)
    assert memory.total_gb == pytest.approx(sum(p.gb for p in memory.parts))
    assert memory.total_gb == pytest.approx(per_gpu_gb + 5)


def test_roofline_places_the_kernel_under_the_lower_roof() -> None:
    chart = _draw("roofline", peak_tflops=989, bandwidth_tb_per_s=3.35, intensity_flop_per_byte=50)
    assert isinstance(chart, RooflineChart)

    assert chart.ridge_flop_per_byte == pytest.approx(989 / 3.35)
    assert chart.attainable_tflops == pytest.approx(50 * 3.35)
    assert chart.bound == "memory-bound"


@pytest.mark.parametrize(
    ("diagram", "message"),
    [
        (Diagram(kind="pie"), "diagram kind 'pie' is unknown"),
        (Diagram(kind="ring-allreduce"), "params.ranks is missing"),
        (
            Diagram(kind="pipeline-schedule", params={"stages": -2, "microbatches": 4}),
            "params.stages = -2: input should be greater than or equal to 1",
        ),
        (
            Diagram(kind="ring-allreduce", params={"ranks": 4, "colour": "red"}),
            "params.colour is no parameter of this kind",
        ),
        (
            Diagram(kind="ring-allreduce", params={"ranks": "{gpus}"}),
            "params.ranks refers to {gpus}, which no parameter defines",
        ),
        (
            Diagram(
                kind="pipeline-schedule",
                params={"schedule": "zb-h1", "stages": 16, "microbatches": 128},
            ),
            "too large to draw",
        ),
        (
            Diagram(kind="roofline", params={"peak_tflops": 989}),
            "exactly one of bandwidth_gb_per_s and bandwidth_tb_per_s",
        ),
    ],
)
def test_a_diagram_that_cannot_be_drawn_says_why(diagram: Diagram, message: str) -> None:
    problems = diagram_problems(diagram)

    assert len(problems) == 1
    assert message in problems[0]
    assert item_diagram(Item(id="cloud-9999", diagram=diagram)) is None


TEMPLATE = {
    "id": "cloud-9998",
    "format": "numeric",
    "question": "What share of a {stages}-stage, {micro}-micro-batch step is bubble?",
    "parameters": {"stages": {"choices": [2, 4, 8]}, "micro": {"min": 8, "max": 32, "step": 8}},
    "answer_expr": "({stages} - 1) / ({micro} + {stages} - 1)",
    "answer_unit": "%",
    "diagram": {
        "kind": "pipeline-schedule",
        "params": {"stages": "{stages}", "microbatches": "{micro}"},
    },
}


def test_each_template_draw_gets_the_picture_of_its_own_numbers() -> None:
    template = Item.model_validate(TEMPLATE)
    pictures = set()
    for seed in range(12):
        draw = draw_template(template, seed)
        geometry = item_diagram(draw.item)
        assert isinstance(geometry, PipelineSchedule)
        assert geometry.stages == draw.values["stages"]
        assert geometry.microbatches == draw.values["micro"]
        assert geometry.bubble_fraction == pytest.approx(draw.answer_value / 100)
        pictures.add((geometry.stages, geometry.microbatches))

    assert len(pictures) > 1


@pytest.mark.parametrize(
    "diagram",
    [
        Diagram(kind="pipeline-schedule", params={"stages": 16, "microbatches": 128}),
        Diagram(
            kind="pipeline-schedule",
            params={"schedule": "interleaved", "stages": 8, "microbatches": 32, "chunks": 4},
        ),
        Diagram(kind="ring-allreduce", params={"ranks": 128, "message_gb": 9}),
        Diagram(kind="tree-allreduce", params={"ranks": 32}),
        Diagram(
            kind="memory-breakdown",
            params={"parameters_billion": 70, "zero_stage": 3, "data_parallel": 512},
        ),
        Diagram(
            kind="roofline",
            params={"peak_tflops": 989, "bandwidth_gb_per_s": 3350, "intensity_flop_per_byte": 1},
        ),
    ],
)
@pytest.mark.parametrize("results", [False, True])
def test_every_diagram_fits_in_80_columns_of_text(diagram: Diagram, results: bool) -> None:
    lines = diagram_text(build_diagram(diagram), results=results)

    assert len(lines) >= 3
    assert max(len(line) for line in lines) <= 80


def test_the_question_side_hides_the_figures_that_are_the_answer() -> None:
    geometry = build_diagram(
        Diagram(kind="pipeline-schedule", params={"stages": 4, "microbatches": 16})
    )

    front = "\n".join(diagram_text(geometry))
    back = diagram_summary(geometry, results=True)
    assert "15.8" not in front
    assert "bubble 15.8 % of the step (18.8 % of the ideal time)" in back
    # Warm-up, a wait of 2(p-1) forward times for the first backward, 1F1B, then drain.
    assert front.splitlines()[1] == "GPU 0 |FFFF" + "." * 6 + "BBF" * 12 + "BB" + ".BB" * 3


def test_a_long_schedule_in_text_keeps_every_slot_whole_and_leaves_out_the_middle() -> None:
    lines = diagram_text(
        build_diagram(Diagram(kind="pipeline-schedule", params={"stages": 8, "microbatches": 64}))
    )
    first = next(line for line in lines if line.startswith("GPU 0 "))
    last = next(line for line in lines if line.startswith("GPU 7 "))
    cells = first.split("|", 1)[1]
    # Warm-up: the first stage sends 8 forwards before its first backward comes back...
    assert cells.startswith("FFFFFFFF.")
    # ...every backward keeps its two cells, and the steady middle is cut, not squeezed.
    assert "~" in cells and cells.endswith(".BB.BB")
    assert last.split("|", 1)[1].startswith(".......FBBFBBF")
    assert all(len(line) <= 80 for line in lines)
    assert any("~ the steady middle, left out" in line for line in lines)


def test_a_kernel_far_below_the_roof_shows_its_share_of_peak_in_two_figures() -> None:
    geometry = build_diagram(
        Diagram(
            kind="roofline",
            params={"peak_tflops": 989, "bandwidth_tb_per_s": 3.35, "intensity_flop_per_byte": 1},
        )
    )
    lines = diagram_text(geometry, results=True)
    assert lines[-1] == "attainable 3.35 of 989 TFLOP/s (0.34 % of peak)"


def test_the_caption_is_printed_under_the_picture() -> None:
    geometry = build_diagram(
        Diagram(
            kind="ring-allreduce",
            params={"ranks": 4, "message_mb": 100, "bandwidth_gb_per_s": 50},
        )
    )
    lines = diagram_text(geometry, caption="The inter-node ring only.")
    assert lines[-1] == "The inter-node ring only."
