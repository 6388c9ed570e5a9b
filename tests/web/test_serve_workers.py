"""``sysdrill serve --workers 2`` for real: two processes on a free port, then stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from sysdrill.content.sample import sample_vault_path
from sysdrill.web.worker_cpus import cpus_to_keep_to

STARTUP_LIMIT_S = 90.0
"""How long the server may take to answer (the machine running the tests may be busy)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _worker_pids(parent: int) -> set[int]:
    """The server's worker processes (multiprocessing's resource tracker is no worker)."""
    children = Path(f"/proc/{parent}/task/{parent}/children")
    if not children.is_file():
        return set()
    found = set()
    for pid in children.read_text().split():
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"resource_tracker" not in command:
            found.add(int(pid))
    return found


def test_serve_with_two_workers_runs_two_processes_that_answer_pages(tmp_path: Path) -> None:
    # PostgreSQL when the test run has one, else a SQLite file (single user).
    db_url = os.environ.get("SYSDRILL_TEST_POSTGRES_URL") or f"sqlite:///{tmp_path / 's.sqlite3'}"
    port = _free_port()
    environ = {
        **os.environ,
        "SYSDRILL_DATA_DIR": str(tmp_path / "data"),
        "SYSDRILL_CACHE_DIR": str(tmp_path / "cache"),
    }
    command = [sys.executable, "-m", "sysdrill", "serve", "--workers", "2", "--pin-cpus"]
    command += ["--port", str(port)]
    command += ["--db", db_url, "--vault", str(sample_vault_path())]
    server = subprocess.Popen(
        command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + STARTUP_LIMIT_S
        dashboard = None
        while dashboard is None:
            assert server.poll() is None, server.communicate()[1]
            try:
                dashboard = httpx.get(f"http://127.0.0.1:{port}/api/dashboard", timeout=30)
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not answer in time"
                time.sleep(0.2)
        assert dashboard.status_code == 200
        assert dashboard.json()["reviews_total"] == 0
        workers = _worker_pids(server.pid)
        assert len(workers) == 2 or not Path("/proc").is_dir()
        if len(cpus_to_keep_to()) >= 2:
            # Each worker keeps to a CPU of its own (--pin-cpus, sysdrill.web.worker_cpus).
            kept = [os.sched_getaffinity(pid) for pid in workers]
            assert [len(cpus) for cpus in kept] == [1, 1]
            assert kept[0] != kept[1]
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=30)
        assert page.status_code == 200
        assert "<html" in page.text
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    assert f"sysdrill is serving on http://127.0.0.1:{port}/" in out
    pinned = ", each on a CPU of its own" if cpus_to_keep_to() else ""
    assert f"; 2 workers of 2 threads{pinned}; single user" in out
    assert server.returncode == 0, err
