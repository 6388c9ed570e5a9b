"""Count the SQL statements a server process sends, for ``bench/web_load.py`` runs.

Put this folder on ``PYTHONPATH`` and set ``SQLCOUNT_DIR``: every process that imports
SQLAlchemy then writes ``<pid>.json`` there every two seconds, the statements it sent
(first 300 characters, whitespace folded) with how often, and its BEGINs and COMMITs.
Divide by the requests the load run reports to get statements a request.

    SQLCOUNT_DIR=/tmp/counts PYTHONPATH=src:bench/sql_count \\
        python bench/web_load.py --only postgresql --runs saturated --seconds 60
"""

from __future__ import annotations

import os

if os.environ.get("SQLCOUNT_DIR"):
    import collections
    import json
    import threading
    import time
    from typing import Any

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    _counts: collections.Counter[str] = collections.Counter()

    def _statement(*args: Any) -> None:
        statement = args[2]
        _counts[" ".join(str(statement).split())[:300]] += 1

    def _commit(_: Any) -> None:
        _counts["<COMMIT>"] += 1

    def _begin(_: Any) -> None:
        _counts["<BEGIN>"] += 1

    event.listen(Engine, "before_cursor_execute", _statement)
    event.listen(Engine, "commit", _commit)
    event.listen(Engine, "begin", _begin)

    def _dump() -> None:
        folder = os.environ["SQLCOUNT_DIR"]
        while True:
            time.sleep(2)
            with open(os.path.join(folder, f"{os.getpid()}.json"), "w", encoding="utf-8") as out:
                json.dump(dict(_counts), out)

    threading.Thread(target=_dump, daemon=True).start()
