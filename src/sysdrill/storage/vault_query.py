"""Read a compiled vault: full-text search, one item, statistics, release metadata.

Search accepts any text a user types. The text is first tried as an FTS5 query
(so ``"ring all-reduce"``, ``roof*``, ``title:bubble`` and ``a OR b`` work); if
FTS5 rejects it, it is searched again as plain terms: each whitespace-separated
word becomes a quoted phrase of its letters and digits, all of which must match.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.content.models import Item
from sysdrill.errors import QuestionNotFound, StorageError
from sysdrill.storage.vault_schema import connect_read_only

__all__ = [
    "count_matches",
    "NONE_KEY",
    "ItemRecord",
    "ReleaseInfo",
    "SearchHit",
    "VaultStats",
    "get_item",
    "plain_terms_query",
    "read_release",
    "search_items",
    "vault_stats",
]

NONE_KEY = "none"
"""Key under which :func:`vault_stats` counts items that lack a field (flashcards, quizzes)."""

_WORD = re.compile(r"\w+")
_RANK = "bm25(items_fts, 10.0, 1.0, 4.0, 2.0)"
"""Title matches weigh most, then the question, the answer, and the scenario."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    id: str
    title: str | None
    track: str | None
    level: str | None
    topic: str | None
    kind: str
    status: str
    snippet: str
    """Matching text with the matched terms between ``**`` markers (empty without a query)."""
    score: float
    """BM25 relevance, lower is better (0 without a query)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``search --json``."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """One item as stored by ``build``."""

    item: Item
    path: str
    """File of the item, relative to the vault root."""
    content_hash: str


@dataclass(frozen=True, slots=True)
class ReleaseInfo:
    """Release metadata of a compiled vault."""

    release_hash: str
    built_at: datetime
    item_count: int
    published_count: int
    tool_version: str
    vault_root: str


@dataclass(slots=True)
class VaultStats:
    """Counts of items, for ``sysdrill stats``."""

    total: int
    by_track_level: dict[str, dict[str, int]] = field(default_factory=dict)
    by_zone: dict[str, int] = field(default_factory=dict)
    by_competency_area: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``stats --json``."""
        return asdict(self)


@contextlib.contextmanager
def _reading(db_path: Path) -> Any:
    connection = connect_read_only(db_path)
    try:
        yield connection
    except sqlite3.Error as exc:
        raise StorageError(
            f"cannot read '{db_path}' ({exc}); rebuild it with `sysdrill build`"
        ) from exc
    finally:
        connection.close()


def plain_terms_query(text: str) -> str:
    """The FTS5 query for ``text`` read as plain words (``""`` when it has none).

    Each whitespace-separated chunk becomes a quoted phrase of its word
    characters, so ``all-reduce`` matches the adjacent tokens ``all reduce``.
    """
    phrases = []
    for chunk in text.split():
        words = _WORD.findall(chunk)
        if words:
            phrases.append('"' + " ".join(words) + '"')
    return " ".join(phrases)


_PLAIN = re.compile(r"[\w\s]+")
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


def folded_query(db: sqlite3.Connection, text: str) -> str | None:
    """An FTS5 query for plain words that also matches them hyphenated or spaced.

    ``allreduce`` also finds ``all-reduce`` and ``all reduce`` (it splits into
    two words the index holds), and ``all reduce`` also finds ``allreduce``;
    None when ``text`` is not plain words (or uses FTS5's operators), to be
    searched as written.
    """
    if not _PLAIN.fullmatch(text) or _OPERATORS & set(text.split()):
        return None
    words = [word.lower() for word in text.split()]
    splits = {
        word: [(word[:i], word[i:]) for i in range(2, len(word) - 1)]
        for word in words
        if len(word) >= 5
    }
    wanted = {half for pairs in splits.values() for pair in pairs for half in pair}
    wanted |= {a + b for a, b in zip(words, words[1:], strict=False)}
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, items_fts, row)"
    )
    marks = ",".join("?" * len(wanted))
    known = {
        row[0]
        for row in db.execute(f"SELECT term FROM temp.vocab WHERE term IN ({marks})", [*wanted])
    }
    groups: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else None
        if following is not None and word + following in known:
            groups.append(f'("{word} {following}" OR "{word}{following}")')
            index += 2
            continue
        spaced = [f'"{a} {b}"' for a, b in splits.get(word, []) if a in known and b in known]
        groups.append(f'("{word}" OR {" OR ".join(spaced)})' if spaced else f'"{word}"')
        index += 1
    return " ".join(groups)


def _filters(
    tracks: Sequence[str], levels: Sequence[str], topics: Sequence[str]
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("track", tracks), ("level", levels), ("topic", topics)):
        if values:
            clauses.append(f"i.{column} IN ({','.join('?' * len(values))})")
            params.extend(values)
    return "".join(f" AND {clause}" for clause in clauses), params


def _hit(row: sqlite3.Row | Mapping[str, Any]) -> SearchHit:
    return SearchHit(
        id=row["id"],
        title=row["title"],
        track=row["track"],
        level=row["level"],
        topic=row["topic"],
        kind=row["kind"],
        status=row["status"],
        snippet=row["snippet"] or "",
        score=float(row["score"]),
    )


def search_items(
    db_path: Path,
    query: str,
    *,
    tracks: Sequence[str] = (),
    levels: Sequence[str] = (),
    topics: Sequence[str] = (),
    limit: int = 20,
) -> list[SearchHit]:
    """Search titles, scenarios, questions and answers.

    Args:
        db_path: A compiled vault.
        query: Any text; FTS5 syntax is honoured when valid, else plain words.
            Blank text lists the items that pass the filters, by id.
        tracks: Keep only these tracks (any of them).
        levels: Keep only these levels, such as ``L3`` or ``L6+``.
        topics: Keep only these topics.
        limit: Most results returned.

    Returns:
        Hits, best first.

    Raises:
        StorageError: If the database cannot be read.
    """
    where, params = _filters(tracks, levels, topics)
    with _reading(db_path) as db:
        if not query.strip():
            rows = db.execute(
                "SELECT i.id, i.title, i.track, i.level, i.topic, i.kind, i.status, "
                f"'' AS snippet, 0.0 AS score FROM items i WHERE 1 = 1{where} "
                "ORDER BY i.id LIMIT ?",
                [*params, limit],
            ).fetchall()
            return [_hit(row) for row in rows]
        try:
            match = folded_query(db, query) or query
            return _ranked(db, match, where, params, limit)
        except (sqlite3.Error, ValueError):
            # Not valid FTS5 (or not encodable): search the words it contains instead.
            plain = plain_terms_query(query)
            if not plain:
                return []
            return _ranked(db, plain, where, params, limit)


_FEW_HITS = 1000
"""Most hits :func:`_ranked` looks up by rowid after ranking (a list of bound values)."""


def _ranked(
    db: sqlite3.Connection, match: str, where: str, params: list[Any], limit: int
) -> list[SearchHit]:
    """The best ``limit`` matches of ``match`` passing ``where``, best first.

    A query that ranks and reads each item's row at once joins every match to its
    item (25,000 of 100,000 items for a common word, about 15 ms) before keeping
    the best; so a few hits are ranked in the index alone (joined only when a
    filter needs the item's columns), then their rows and snippets read by rowid.
    """
    columns = "i.id, i.title, i.track, i.level, i.topic, i.kind, i.status"
    snippet = "snippet(items_fts, -1, '**', '**', '...', 16) AS snippet"
    joined = "FROM items_fts JOIN items i ON i.rowid = items_fts.rowid"
    if limit > _FEW_HITS:
        sql = (
            f"SELECT {columns}, {snippet}, {_RANK} AS score {joined} "
            f"WHERE items_fts MATCH ?{where} ORDER BY score LIMIT ?"
        )
        return [_hit(row) for row in db.execute(sql, [match, *params, limit])]
    source = joined if where else "FROM items_fts"
    top = db.execute(
        f"SELECT items_fts.rowid, {_RANK} AS score {source} "
        f"WHERE items_fts MATCH ?{where} ORDER BY score LIMIT ?",
        [match, *params, limit],
    ).fetchall()
    if not top:
        return []
    rowids = [row[0] for row in top]
    marks = ",".join("?" * len(rowids))
    snippets = dict(
        db.execute(
            f"SELECT rowid, {snippet} FROM items_fts "
            f"WHERE items_fts MATCH ? AND rowid IN ({marks})",
            [match, *rowids],
        ).fetchall()
    )
    rows = {
        row["rowid"]: row
        for row in db.execute(
            f"SELECT i.rowid AS rowid, {columns} FROM items i WHERE i.rowid IN ({marks})", rowids
        )
    }
    return [
        _hit({**dict(rows[rowid]), "snippet": snippets.get(rowid), "score": score})
        for rowid, score in top
    ]


def count_matches(
    db_path: Path,
    query: str,
    *,
    tracks: Sequence[str] = (),
    levels: Sequence[str] = (),
    topics: Sequence[str] = (),
) -> int:
    """How many items :func:`search_items` would find with no limit (without ranking them).

    Raises:
        StorageError: If the database cannot be read.
    """
    where, params = _filters(tracks, levels, topics)
    with _reading(db_path) as db:
        if not query.strip():
            sql = f"SELECT count(*) FROM items i WHERE 1 = 1{where}"
            return int(db.execute(sql, params).fetchone()[0])
        # Every index row is an item's (external content): without a filter on the
        # items' columns the index counts alone, about 1 ms instead of 15 at 100,000.
        joined = " JOIN items i ON i.rowid = items_fts.rowid" if where else ""
        sql = f"SELECT count(*) FROM items_fts{joined} WHERE items_fts MATCH ?{where}"
        try:
            match = folded_query(db, query) or query
            return int(db.execute(sql, [match, *params]).fetchone()[0])
        except (sqlite3.Error, ValueError):
            plain = plain_terms_query(query)
            if not plain:
                return 0
            return int(db.execute(sql, [plain, *params]).fetchone()[0])


def get_item(db_path: Path, item_id: str) -> ItemRecord:
    """One item by id.

    Args:
        db_path: A compiled vault.
        item_id: The item's id, such as ``cloud-0102``.

    Returns:
        The validated item with its path and content hash.

    Raises:
        QuestionNotFound: If no item has that id (the message suggests close ids).
        StorageError: If the database cannot be read.
    """
    with _reading(db_path) as db:
        row = db.execute(
            "SELECT path, content_hash, item_json FROM items WHERE id = ?", (item_id,)
        ).fetchone()
        if row is None:
            ids = [r[0] for r in db.execute("SELECT id FROM items")]
            close = difflib.get_close_matches(item_id, ids, n=3)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            raise QuestionNotFound(
                f"no item with id '{item_id}'; {hint}find ids with `sysdrill search`"
            )
        item = Item.model_validate(json.loads(row["item_json"]))
        return ItemRecord(item=item, path=row["path"], content_hash=row["content_hash"])


def _count(db: sqlite3.Connection, column: str) -> dict[str, int]:
    rows = db.execute(
        f"SELECT coalesce({column}, ?) AS key, count(*) FROM items GROUP BY key ORDER BY key",
        (NONE_KEY,),
    ).fetchall()
    return {str(key): int(count) for key, count in rows}


def vault_stats(db_path: Path) -> VaultStats:
    """Counts by track and level, zone, competency area, status and kind of item.

    Args:
        db_path: A compiled vault.

    Returns:
        The counts; items lacking a field are counted under :data:`NONE_KEY`.
        Levels within a track are in level order (L1 to L6+).

    Raises:
        StorageError: If the database cannot be read.
    """
    with _reading(db_path) as db:
        stats = VaultStats(total=db.execute("SELECT count(*) FROM items").fetchone()[0])
        rows = db.execute(
            "SELECT coalesce(track, ?) AS t, coalesce(level, ?) AS l, count(*) FROM items "
            "GROUP BY t, l ORDER BY t, coalesce(level_rank, 99)",
            (NONE_KEY, NONE_KEY),
        ).fetchall()
        for track, level, count in rows:
            stats.by_track_level.setdefault(track, {})[level] = count
        stats.by_zone = _count(db, "zone")
        stats.by_competency_area = _count(db, "competency_area")
        stats.by_status = _count(db, "status")
        stats.by_kind = _count(db, "kind")
        return stats


def read_release(db_path: Path) -> ReleaseInfo:
    """Release metadata written by the last build.

    Raises:
        StorageError: If the database cannot be read.
    """
    with _reading(db_path) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    try:
        return ReleaseInfo(
            release_hash=meta["release_hash"],
            built_at=datetime.fromisoformat(meta["built_at"]),
            item_count=int(meta["item_count"]),
            published_count=int(meta["published_count"]),
            tool_version=meta["tool_version"],
            vault_root=meta["vault_root"],
        )
    except (KeyError, ValueError) as exc:
        raise StorageError(
            f"'{db_path}' has incomplete metadata ({exc}); rebuild it with `sysdrill build`"
        ) from exc
