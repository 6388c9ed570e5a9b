"""The study API: choose items, record reviews, report progress for one learner.

This is the one entry point the session commands, the terminal UI and the web
app use. Typical use::

    from datetime import UTC, datetime
    from sysdrill.app.study import open_study
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.study.service import GradedBy, ItemFilter, Rating

    vault = open_study_vault(vault_path)
    items = vault.items
    with open_study(vault=vault) as study:  # the vault's own study state
        now = datetime.now(UTC)
        for item in study.next_items(items, now=now, filters=ItemFilter(), limit=10):
            outcome = study.record_review(
                item.id, rating=Rating.GOOD, graded_by=GradedBy.SELF,
                answer=None, duration_ms=4200, now=now,
            )

Every review is committed in its own transaction before ``record_review``
returns. Times are injected: every time-dependent method takes ``now``, a
timezone-aware UTC datetime (a naive or non-UTC value raises SchedulingError).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any

from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc, utc_day
from sysdrill.study.deadline import final_pass_day, final_pass_start
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating, rating_from_confidence, rating_from_text
from sysdrill.study.recording import ReadCard, ReviewOutcome, ReviewRecording, ScheduledReview
from sysdrill.study.scheduler import new_card
from sysdrill.study.sessions.pools import memo_for_list
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import SessionId, SessionRecord, StudyScope, UserId, VaultId

if TYPE_CHECKING:
    from sysdrill.study.optimizer import FitResult
    from sysdrill.study.progress import ProgressReport
    from sysdrill.study.workload import DayWorkload

__all__ = [
    "CardRecord",
    "CardState",
    "GradedBy",
    "ItemFilter",
    "ScheduledReview",
    "Rating",
    "ReadCard",
    "ReviewOutcome",
    "SessionId",
    "StudyService",
    "StudySettings",
    "rating_from_confidence",
    "rating_from_text",
]


_END_OF_TIME = datetime(9999, 1, 1, tzinfo=UTC)


class StudyService(ReviewRecording):
    """One learner's study state over a :class:`~sysdrill.study.store.StudyStore`."""

    def __init__(
        self,
        store: StudyStore,
        *,
        vault_id: VaultId,
        user: str = "local",
        user_id: UserId | None = None,
        now: datetime | None = None,
        settings: StudySettings | None = None,
    ):
        """Bind the service to ``store``, user ``user`` (created on first use) and a vault.

        Args:
            store: Any StudyStore (SQL or in-memory).
            vault_id: Identity of the vault studied (``app.study_vault`` finds it);
                cards, reviews and sessions are kept per vault, settings per user.
            user: Learner name.
            user_id: The learner's database id when the caller already knows it
                (a logged-in account's); looked up by name, creating the user, otherwise.
            now: Creation time recorded for a new user (UTC); the current time when None.
            settings: The learner's settings when the caller holds them at their
                current version (a web worker's kept copy); read on first use otherwise.
        """
        self._store = store
        self.user = user
        self._created = require_utc(now) if now is not None else datetime.now(UTC)
        self._vault_id = vault_id
        # Looked up on first use, so a service opened for one move asks the
        # database inside that move's unit of work (one connection, one transaction).
        self._scope_found = None if user_id is None else StudyScope(user_id, vault_id)
        self._settings_found = settings
        # Item ids that already have a card: choosing new items must not ask the
        # database about each of thousands of items.
        self._known: set[str] | None = None
        self._today: tuple[date, int, int] | None = None

    # -- lifecycle -------------------------------------------------------------

    def close(self) -> None:
        """Close the underlying store."""
        self._store.close()

    def __enter__(self) -> StudyService:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def store(self) -> StudyStore:
        """The underlying store (for progress, export and tests)."""
        return self._store

    @property
    def user_id(self) -> UserId:
        """Database id of the learner (the user is created on first use)."""
        return self.scope.user_id

    @property
    def vault_id(self) -> VaultId:
        """Identity of the vault whose study state this service reads and writes."""
        return self._vault_id

    @property
    def scope(self) -> StudyScope:
        """The learner and the vault: the key of the cards, reviews and sessions."""
        if self._scope_found is None:
            user_id = self._store.ensure_user(self.user, now=self._created)
            self._scope_found = StudyScope(user_id, self._vault_id)
        return self._scope_found

    def adopt_state(self, source: VaultId) -> bool:
        """Take over the study state kept under vault ``source``, if this vault has none.

        Used when a vault is first opened under its declared id after being studied
        under its path, and for the legacy state of schema 0003 (``docs/sessions.md``).

        Returns:
            Whether any state moved.
        """
        moved = self._store.move_vault_state(self.user_id, source=source, target=self._vault_id)
        if moved:
            self._reload()
        return moved

    # -- settings --------------------------------------------------------------

    @property
    def settings(self) -> StudySettings:
        """The learner's settings in force."""
        if self._settings_found is None:
            self._settings_found = StudySettings.from_stored(self._store.get_settings(self.user_id))
        return self._settings_found

    def update_settings(self, **changes: Any) -> StudySettings:
        """Validate and store changed settings (keyword per field of StudySettings).

        Raises:
            SchedulingError: If a value is out of range; nothing is stored then.
        """
        updated = self.settings.with_changes(**changes)
        mapping = updated.to_mapping()
        self._store.put_settings(self.user_id, {key: mapping[key] for key in changes})
        self._settings_found = updated
        return updated

    def set_setting(self, key: str, value: str) -> StudySettings:
        """Parse ``value`` as typed on a command line and store it under ``key``.

        Raises:
            SchedulingError: For an unknown key or an invalid value.
        """
        from sysdrill.study.settings import parse_setting

        parsed = parse_setting(key, value)
        mapping = self.settings.to_mapping()
        mapping[key] = parsed
        updated = StudySettings.from_mapping(mapping)
        self._store.put_settings(self.user_id, {key: updated.to_mapping()[key]})
        self._settings_found = updated
        return updated

    # -- choosing items --------------------------------------------------------

    def _known_ids(self) -> set[str]:
        if self._known is None:
            self._known = self._store.studied_item_ids(self.scope)
        return self._known

    def _today_counts(self, moment: datetime) -> tuple[int, int]:
        # Counted once a day from the log, then kept up to date by record_review;
        # another process's reviews today are seen from the next UTC day on.
        day = utc_day(moment)
        if self._today is None or self._today[0] != day:
            new, learned = self._store.count_reviews_on(self.scope, day)
            self._today = (day, new, learned)
        return self._today[1], self._today[2]

    def _offered_in_final_pass(
        self, card: CardRecord, *, pass_start: datetime, now: datetime
    ) -> bool:
        """Whether the final pass offers ``card`` now: due, or its pass day has come."""
        if card.due is not None and card.due <= now:
            return True
        if card.last_review is not None and card.last_review >= pass_start:
            return False  # its last look before the interview is done
        assert self.settings.deadline is not None
        day = final_pass_day(card.item_id, deadline=self.settings.deadline, today=now.date())
        return day <= now.date()

    @staticmethod
    def _pool(items: Sequence[Item], chosen: ItemFilter) -> dict[str, Item]:
        # Sessions call next_items again and again with the same vault list;
        # indexing ten thousand items each time would dominate the cost.
        def index() -> dict[str, Item]:
            if chosen.is_empty:
                return {item.id: item for item in items}
            return {item.id: item for item in items if chosen.matches(item)}

        return memo_for_list(items, ("index", chosen), index)

    def card_state(self, item_id: str) -> CardRecord:
        """Return the item's card; a NEW, never-seen card when it was never reviewed."""
        return self._store.get_card(self.scope, item_id) or new_card(item_id)

    def new_items_today(self, now: datetime) -> int:
        """Items of this vault met for the first time on ``now``'s UTC day (the day's counters)."""
        return self._today_counts(require_utc(now))[0]

    def is_new(self, item_id: str) -> bool:
        """Whether the item was never reviewed: it has no card, or its card is still NEW.

        Read once per service from the learner's studied ids (not a query per item):
        session plans ask it of every member of every chain.
        """
        return item_id not in self._known_ids()

    def next_items(
        self,
        items: Sequence[Item],
        *,
        now: datetime,
        filters: ItemFilter | None = None,
        limit: int = 20,
    ) -> list[Item]:
        """Choose what to study now: due items first, then new ones within the daily limits.

        Due items come earliest-due first; learning and relearning items are not
        counted against ``reviews_per_day``. New items come in the order of
        ``items`` (vault order), at most ``new_per_day`` a UTC day.

        Args:
            items: The vault's items (``load_vault(root).items``); pass the same list
                on every call (and do not change it) so the service can reuse its index.
            now: Current time (UTC).
            filters: Criteria items must meet; None or empty for all.
            limit: Items to return at most.

        Returns:
            Up to ``limit`` items; empty when nothing is due and no new item is allowed.
        """
        moment = require_utc(now)
        chosen = ItemFilter() if filters is None else filters
        by_id = self._pool(items, chosen)
        if limit <= 0 or not by_id:
            return []
        new_done, reviews_done = self._today_counts(moment)
        reviews_left = max(0, self.settings.reviews_per_day - reviews_done)
        due_by = moment
        pass_start = final_pass_start(self.settings, now=moment)
        if pass_start is not None and moment >= pass_start:
            # Deadline mode: in the final pass every studied item not reviewed
            # since it began comes up once, on its own day (study/deadline.py).
            due_by = _END_OF_TIME
        else:
            pass_start = None
        picked: list[Item] = []
        offset = 0
        page = limit * 2 + 8
        while len(picked) < limit:
            cards = self._store.due_cards(self.scope, due_by=due_by, offset=offset, limit=page)
            for card in cards:
                item = by_id.get(card.item_id)
                if item is None:
                    continue
                if pass_start is not None and not self._offered_in_final_pass(
                    card, pass_start=pass_start, now=moment
                ):
                    continue
                if card.state is CardState.REVIEW:
                    if reviews_left <= 0:
                        continue
                    reviews_left -= 1
                picked.append(item)
                if len(picked) >= limit:
                    break
            if len(cards) < page:
                break
            offset += page
            # Skipping (other filters, the review limit reached): read further ahead.
            page = min(page * 4, 4096)
        new_left = max(0, self.settings.new_per_day - new_done)
        if len(picked) < limit and new_left > 0:
            # The first unknown ids in vault order, found at C speed: a learner far
            # into a vault has thousands of known items before them.
            fresh = itertools.filterfalse(self._known_ids().__contains__, by_id)
            wanted = min(limit - len(picked), new_left)
            picked.extend(by_id[item_id] for item_id in itertools.islice(fresh, wanted))
        return picked

    # -- sessions --------------------------------------------------------------

    def start_session(
        self, kind: str, *, now: datetime, meta: Mapping[str, Any] | None = None
    ) -> SessionId:
        """Record the start of a session (``practice``, ``quiz``, ``gauntlet``, ...).

        Args:
            kind: Session kind.
            now: Start time (UTC).
            meta: JSON-ready details (filters, deck, format).

        Returns:
            The id to pass to :meth:`record_review` and :meth:`finish_session`.
        """
        record = SessionRecord(kind=kind, started_at=require_utc(now), meta=dict(meta or {}))
        return self._store.start_session(self.scope, record)

    def finish_session(
        self, session_id: SessionId, *, now: datetime, summary: Mapping[str, Any] | None = None
    ) -> None:
        """Record the end of a session and merge ``summary`` (e.g. score) into its metadata."""
        self._store.finish_session(session_id, ended_at=require_utc(now), meta=dict(summary or {}))

    def sessions(self, *, kind: str | None = None, open_only: bool = False) -> list[SessionRecord]:
        """Return the learner's sessions, oldest first (of ``kind``; unended if ``open_only``)."""
        return self._store.list_sessions(self.scope, kind=kind, open_only=open_only)

    # -- reports ---------------------------------------------------------------

    def progress(self, items: Sequence[Item], *, now: datetime) -> ProgressReport:
        """Build the progress report (coverage, retention, streak, forecast, weak topics).

        Args:
            items: The vault's items, for coverage by competency area and track.
            now: Current time (UTC).
        """
        from sysdrill.study.progress import build_progress

        return build_progress(self._store, self.scope, items, now=now, settings=self.settings)

    def deadline_workload(
        self, items: Sequence[Item], *, now: datetime, filters: ItemFilter | None = None
    ) -> list[DayWorkload]:
        """Expected reviews and new items per day from today until the deadline.

        Raises:
            SchedulingError: If no deadline is set or it has passed.
        """
        from sysdrill.study.workload import workload_of_items

        chosen = ItemFilter() if filters is None else filters
        wanted = {item.id for item in items if chosen.matches(item)}
        # Today's new items already seen spend today's allowance, as practice counts them.
        return workload_of_items(
            self._store,
            self.scope,
            wanted,
            settings=self.settings,
            now=now,
            introduced_today=self.new_items_today(now),
        )

    def export_state(self, *, now: datetime) -> dict[str, Any]:
        """Return all of the learner's state as one JSON-ready mapping (lossless).

        Args:
            now: Export time (UTC), written into the document.
        """
        from sysdrill.study.state_io import export_user_state

        return export_user_state(self._store, self.scope, user=self.user, now=now)

    def import_state(
        self, data: Mapping[str, Any], *, replace: bool = False, into_vault: bool = False
    ) -> int:
        """Load a document written by :meth:`export_state`, all or nothing.

        Args:
            data: The parsed JSON document.
            replace: Overwrite existing state; without it a learner with any
                reviews or cards is refused.
            into_vault: Accept the state of another vault (the document's ``vault``
                differs from this service's); refused otherwise.

        Returns:
            The number of reviews imported.

        Raises:
            ImportFailed: If the document is malformed, holds another vault's state
                without ``into_vault``, or state exists without ``replace``.
        """
        from sysdrill.study.state_io import import_user_state

        count = import_user_state(
            self._store, self.scope, data, replace=replace, into_vault=into_vault
        )
        self._reload()
        return count

    def import_staffml(
        self, data: Mapping[str, Any], *, now: datetime, replace: bool = False
    ) -> int:
        """Convert a StaffML browser export (attempts and SM-2 cards) into FSRS state.

        Returns:
            The number of reviews imported.

        Raises:
            ImportFailed: If the document is not a StaffML export or state exists
                without ``replace``.
        """
        from sysdrill.study.staffml_progress import import_staffml_progress

        count = import_staffml_progress(
            self._store, self.scope, data, now=now, settings=self.settings, replace=replace
        )
        self._reload()
        return count

    def optimize(self, *, progress: Callable[[str, int, int], None] | None = None) -> FitResult:
        """Fit FSRS parameters to the learner's review log and store them as settings.

        ``progress(stage, done, total)`` hears the fit's stages (see
        :mod:`~sysdrill.study.optimizer`).

        Raises:
            SchedulingError: If the history is too short or the optimizer extra is missing.
        """
        from sysdrill.study.optimizer import fit_parameters

        result = fit_parameters(self._store, self.scope, progress=progress)
        self.update_settings(fsrs_parameters=result.parameters)
        return result

    def _reload(self) -> None:
        self._known = None
        self._today = None
        self._settings_found = None
