"""The vault browser (filters and full-text search), the item page and explore."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import RedirectResponse, Response

from sysdrill.app.browse import BrowseFilters, BrowseResult, browse, browse_facets, in_id_order
from sysdrill.app.example_draw import shown_item
from sysdrill.app.explore import explore_groups, explore_tree
from sysdrill.app.item_actions import (
    ItemHistory,
    ItemStatus,
    bury_item,
    find_item,
    item_history,
    suspend_item,
    unbury_item,
    unsuspend_item,
)
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.enums import CompetencyArea, Level, Status, Track, Zone
from sysdrill.errors import ContentInvalid
from sysdrill.web.auth import current_study, learner_vault, request_user
from sysdrill.web.context import Context, WebContext
from sysdrill.web.item_view import ItemView, item_view
from sysdrill.web.json_api import json_route
from sysdrill.web.studied_vault import personal_deck_names, personal_items
from sysdrill.web.templating import render_page

__all__ = ["browse_params", "find_item", "paging_params", "router"]

router = APIRouter()
Limit = Annotated[int, Query(ge=1, le=1000, description="Most items listed on one page.")]
PageNumber = Annotated[
    int, Query(ge=1, le=1_000_000, description="Which page of results, from 1 (pages of `limit`).")
]
Text = Annotated[str | None, Query()]
DEFAULT_LIMIT = 200
"""Items one page of the vault browser lists unless ``limit`` says otherwise."""

CHOICES: dict[str, list[str]] = {
    "track": [t.value for t in Track],
    "level": [v.value for v in Level],
    "zone": [z.value for z in Zone],
    "area": [a.value for a in CompetencyArea],
    "status": [s.value for s in Status],
}
"""The closed-set filters and their values, for the filter form."""

EXPLORE_IDS_SHOWN = 12
"""Item links the explore page lists per level; the rest are one link to the vault browser."""


def _learners_vault(request: Request) -> StudyVault:
    """The shared vault with the learner's personal decks (multi-user mode)."""
    return learner_vault(request)


def _browse(
    request: Request,
    context: WebContext,
    limit: int,
    given: dict[str, str | None],
    *,
    page: int = 1,
) -> tuple[BrowseFilters, BrowseResult]:
    filters = BrowseFilters.parse(**given)
    vault = _learners_vault(request)
    compiled = note = None
    if filters.q:
        try:
            compiled = context.compiled_vault()
        except ContentInvalid as exc:
            # A vault with errors cannot be compiled; searching still works, by plain words.
            note = f"searched by plain words: the full-text index needs a clean vault ({exc})"
    facets = context.vaults.derived(
        context.vault, "browse-facets", lambda v: browse_facets(v.items, v.decks)
    )
    own = personal_deck_names(request, vault, user=request_user(request))
    if own:
        facets = {**facets, "deck": sorted({*facets["deck"], *own})}
    ordered = context.vaults.derived(context.vault, "browse-order", lambda v: in_id_order(v.items))
    if vault is not context.load_vault():
        ordered = in_id_order(vault.items)  # a learner's personal decks: this request's vault
    return filters, browse(
        filters,
        items=ordered,
        by_id=vault.by_id,
        decks=vault.decks,
        facets=facets,
        compiled=compiled,
        limit=limit,
        offset=(page - 1) * limit,
        note=note,
        unindexed=personal_items(request, vault) if compiled is not None else (),
    )


def browse_params(
    q: Text = None,
    track: Text = None,
    level: Text = None,
    zone: Text = None,
    area: Text = None,
    topic: Text = None,
    deck: Text = None,
    status: Text = None,
) -> dict[str, str | None]:
    """FastAPI dependency: the browser's query parameters (blank means any)."""
    return {"q": q, "track": track, "level": level, "zone": zone, "area": area} | {
        "topic": topic,
        "deck": deck,
        "status": status,
    }


Filters = Annotated[dict[str, str | None], Depends(browse_params)]


def _page_links(
    given: dict[str, str | None], *, limit: int, page: int, total: int
) -> dict[str, str | None]:
    """Links to the previous, next and first pages, keeping the query and filters."""
    kept = {name: value for name, value in given.items() if value}
    if limit != DEFAULT_LIMIT:
        kept["limit"] = str(limit)

    def link(number: int) -> str:
        query = urlencode({**kept, "page": str(number)} if number > 1 else kept)
        return f"/vault?{query}" if query else "/vault"

    last_page = max(1, -(-total // limit))
    return {
        "previous": link(min(page, last_page + 1) - 1) if page > 1 else None,
        "next": link(page + 1) if page < last_page else None,
        "first": link(1),
    }


def paging_params(limit: Limit = DEFAULT_LIMIT, page: PageNumber = 1) -> tuple[int, int]:
    """FastAPI dependency: items a page (``limit``) and which page, from 1."""
    return limit, page


Paging = Annotated[tuple[int, int], Depends(paging_params)]


@router.get("/vault", include_in_schema=False)
def vault_page(request: Request, context: Context, given: Filters, paging: Paging) -> Response:
    """The vault browser page: one page of the items passing the filters, with page links."""
    limit, page = paging
    filters, result = _browse(request, context, limit, given, page=page)
    links = _page_links(given, limit=limit, page=page, total=result.total)
    return render_page(
        request,
        "vault.html",
        {
            "filters": filters.to_dict(),
            "result": result,
            "choices": CHOICES,
            "page": page,
            "links": links,
        },
    )


@router.get("/api/items", tags=["vault"])
@json_route()
def items_api(request: Request, context: Context, given: Filters, paging: Paging) -> dict[str, Any]:
    """Items passing the filters, one page of ``limit``; with ``q``, ranked by relevance."""
    limit, page = paging
    filters, result = _browse(request, context, limit, given, page=page)
    return {"filters": filters.to_dict(), "page": page, "limit": limit, **result.to_dict()}


def _item_view(request: Request, context: WebContext, item_id: str) -> ItemView:
    vault = _learners_vault(request)
    # A parametric item is shown with its example draw, never its raw {placeholders};
    # practice draws fresh numbers each session.
    found = find_item(vault, item_id)
    item = shown_item(found)
    # A template's page shows a draw, not the file's text: no file lines to honour.
    source = vault.files.get(item_id) if item is found else None
    return item_view(
        item, vault_root=context.vault, chains=vault.chains, by_id=vault.by_id, source=source
    )


def _history(request: Request, context: WebContext, item_id: str) -> ItemHistory:
    with current_study(request) as study:
        return item_history(study, _learners_vault(request), item_id, now=context.now())


@router.get("/items/{item_id}", include_in_schema=False)
def item_page(
    request: Request, context: Context, item_id: str, reported: bool = False, edited: bool = False
) -> Response:
    """The item page: the item, its napkin math and chains, your reviews of it, suspend and bury."""
    from sysdrill.web.routes.item_edit import may_edit

    view = _item_view(request, context, item_id)
    history = _history(request, context, item_id)
    shown = {"v": view, "reported": reported, "history": history, "edited": edited}
    shown["can_edit"] = may_edit(request, _learners_vault(request), item_id)
    return render_page(request, "item.html", shown)


@router.get("/api/items/{item_id}", tags=["vault"])
@json_route()
def item_api(request: Request, context: Context, item_id: str) -> dict[str, Any]:
    """One item with its checked napkin-math claims and its chains."""
    return _item_view(request, context, item_id).to_dict()


@router.get("/api/items/{item_id}/history", tags=["vault"])
@json_route()
def item_history_api(request: Request, context: Context, item_id: str) -> dict[str, Any]:
    """Your reviews of one item (date, rating, interval scheduled, graded by) and its flags."""
    return _history(request, context, item_id).to_dict()


_FlagAction = Callable[..., ItemStatus]

_FLAG_ACTIONS: dict[str, tuple[_FlagAction, str]] = {
    "suspend": (suspend_item, "Suspend one item: it stays out of sessions until unsuspended."),
    "unsuspend": (unsuspend_item, "Unsuspend one item: it comes up again as scheduled."),
    "bury": (bury_item, "Bury one item: it stays out of sessions until the next midnight UTC."),
    "unbury": (unbury_item, "Unbury one item: it may come up again today."),
}
"""Each item action: the path's last word, its use case and what it does."""


def _add_flag_routes(name: str, act: _FlagAction, summary: str) -> None:
    """The action's form route (from the item page) and its JSON twin.

    Each action has paths of its own rather than one ``{action}`` parameter,
    which would also catch the item page's other writes (``/report``).
    """

    def flag(request: Request, context: WebContext, item_id: str) -> ItemStatus:
        with current_study(request) as study:
            return act(study, _learners_vault(request), item_id, now=context.now())

    def form(request: Request, context: Context, item_id: str) -> Response:
        flag(request, context, item_id)
        return RedirectResponse(f"/items/{quote(item_id, safe='')}#your-reviews", status_code=303)

    def api(request: Request, context: Context, item_id: str) -> dict[str, Any]:
        return flag(request, context, item_id).to_dict()

    form.__doc__ = f"{summary} Then show the item page again."
    api.__doc__ = summary
    router.add_api_route(
        f"/items/{{item_id}}/{name}", form, methods=["POST"], include_in_schema=False
    )
    router.add_api_route(
        f"/api/items/{{item_id}}/{name}",
        json_route()(api),
        methods=["POST"],
        tags=["vault"],
        name=f"item_{name}_api",
    )


for _name, (_act, _summary) in _FLAG_ACTIONS.items():
    _add_flag_routes(_name, _act, _summary)


def _explore(request: Request, context: WebContext) -> list[dict[str, Any]]:
    """The explore tree with the learner's coverage (the grouping is kept per vault)."""
    groups = context.vaults.derived(context.vault, "explore", lambda v: explore_groups(v.items))
    with current_study(request) as study:
        seen = study.store.studied_item_ids(study.scope)
    return explore_tree(groups, seen)


@router.get("/explore", include_in_schema=False)
def explore_page(request: Request, context: Context) -> Response:
    """Explore the vault: track, then competency area, then topic, then level, with coverage."""
    from sysdrill.web.charts import explore_treemap, svg_data_uri

    tree = _explore(request, context)
    # The chart reads only each area's counts: draw it again only when they change.
    drawn: dict[str, tuple[object, str]] = context.vaults.derived(
        context.vault, "explore-treemap", lambda _: {}
    )
    key = tuple(
        (track["name"], area["name"], area["items"], area["seen"])
        for track in tree
        for area in track["children"]
    )
    held = drawn.get("last")
    if held is not None and held[0] == key:
        treemap = held[1]
    else:
        treemap = svg_data_uri(explore_treemap(tree))
        drawn["last"] = (key, treemap)
    return render_page(
        request,
        "explore.html",
        {"tree": tree, "treemap": treemap, "shown_ids": EXPLORE_IDS_SHOWN},
    )


@router.get("/api/explore", tags=["vault"])
@json_route()
def explore_api(request: Request, context: Context) -> dict[str, Any]:
    """The track > area > topic > level tree with item counts and coverage."""
    return {"tracks": _explore(request, context)}
