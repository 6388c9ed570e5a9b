"""No 5xx from anything a user can type (issue 29, item 4).

Logged in (an admin of the multi-user app, with a CSRF token; the login and
sign-up routes from an anonymous client), two kinds of target are walked:

- every operation of the app's OpenAPI spec and every page route that names
  something in its path: each path and query parameter, each field of its JSON,
  form or multipart body;
- every HTML form found on the rendered pages, each of its fields.

Each target gets a property test (Hypothesis draws one, two or every field from
extreme and malformed values: huge and negative numbers, NaN and infinity as
text, NUL bytes, very long strings, the wrong JSON type; the others keep usual
values) and a sweep that sends the values issue 29 met to each field in turn.
A 4xx is the right answer to such input; a 5xx is a bug, reported with the
route, the values sent and the server's traceback. After a settings write, the
pages that read settings must still answer (a stored value must not break a
later start).

Hypothesis runs derandomized (the same examples on every run, no example
database) with few examples per target and no shrinking, so the file costs
about half a minute of CPU.
"""

from __future__ import annotations

import logging
import math
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from sysdrill.app.accounts import Role, open_accounts

from .conftest import NOW, from_address, make_app, with_csrf

PASSWORD = "correct horse battery"
ADMIN = "root-admin"
ITEM = "cloud-0101"
"""An item of the sample vault the test app serves."""

HUGE = "99999999999999999999999"
HOSTILE_TEXT: tuple[str, ...] = (
    HUGE,
    "-" + HUGE,
    "9" * 400,
    "-1",
    "0",
    "1e308",
    "1e999",
    "-1e999",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "",
    " ",
    "\x00",
    "a\x00b",
    "w" * 1000,
    "x" * 5000,
    "y" * 200_000,
    "{{ 7 * 7 }}",
    "<script>alert(1)</script>",
    "../../../etc/passwd",
    "%00",
    "9999-12-31",
    "0001-01-01",
    "2026-02-30",
    "1,2,3," + HUGE,
    ",,,",
    "true",
    "null",
    "[]",
    "\u202e\ufeff🙂",
    "0x10",
    "1_000",
    "٣",
)
"""Text a user could type into any field or parameter."""

HOSTILE_JSON: tuple[Any, ...] = (
    10**30,
    -(10**30),
    2**63,
    -1,
    0,
    1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    None,
    [],
    {},
    [HUGE],
    [10**30, -1],
    {"a": HUGE},
    "x" * 5000,
)
"""JSON values of the wrong type or size for any field."""


@dataclass(frozen=True, eq=False)
class Field:
    """One thing a request carries that a user chooses."""

    name: str
    where: str
    """``path``, ``query``, ``json``, ``form`` or ``file``."""
    usual: tuple[Any, ...]
    """Values a well-behaved client sends (the first is the default)."""


@dataclass(frozen=True)
class Target:
    """A route with the fields a user controls."""

    method: str
    path: str
    fields: tuple[Field, ...] = ()
    public: bool = False
    """Reached without a login (sent by an anonymous client)."""

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


# -- the app under test --------------------------------------------------------------


def _build_app(root: Path) -> FastAPI:
    app = make_app(root, multi_user=True)
    with open_accounts(app.state.sysdrill.db_url) as accounts:
        accounts.add(ADMIN, PASSWORD, role=Role.ADMIN, now=NOW)
        accounts.add("bob", PASSWORD, role=Role.LEARNER, now=NOW)
    return app


class _Tracebacks(logging.Handler):
    """Keeps the server's logged tracebacks, to show with a failing request."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        import traceback

        if not record.exc_info or record.exc_info[1] is None:
            return
        error = record.exc_info[1]
        lines = []
        for cause in _chain(error):
            frames = [
                f for f in traceback.extract_tb(cause.__traceback__) if "sysdrill" in f.filename
            ]
            lines += [
                f"  {f.filename.rsplit('/src/', 1)[-1]}:{f.lineno} in {f.name}" for f in frames
            ]
            lines.append(f"{type(cause).__name__}: {cause}")
        self.found.append("\n".join(lines))


def _chain(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in found:
        found.insert(0, current)
        current = current.__cause__ or current.__context__
    return found


@dataclass(repr=False)
class World:
    """The logged-in client, an anonymous one, and what both can name."""

    app: FastAPI
    client: TestClient
    anonymous: TestClient
    session_id: int
    tracebacks: _Tracebacks
    forms: dict[str, list[Target]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return "World()"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    app = _build_app(tmp_path_factory.mktemp("no-5xx"))
    tracebacks = _Tracebacks()
    logger = logging.getLogger("sysdrill")
    logger.addHandler(tracebacks)
    client = with_csrf(TestClient(app, raise_server_exceptions=False))
    # Anonymous requests come from another address: failed logins there slow no one else.
    anonymous = with_csrf(TestClient(from_address(app, "10.9.9.9"), raise_server_exceptions=False))
    with client, anonymous:
        logged_in = client.post("/api/login", json={"name": ADMIN, "password": PASSWORD})
        assert logged_in.status_code == 200, logged_in.text
        started = client.post("/api/study/sessions", json={"kind": "practice"})
        assert started.status_code in (200, 201), started.text
        yield World(app, client, anonymous, int(started.json()["session_id"]), tracebacks)
    logger.removeHandler(tracebacks)


def _relogin(world: World) -> None:
    """Log the admin in again if a request logged them out, or changed their account."""
    account = world.client.get("/api/account")
    if account.status_code == 200 and account.json().get("name") == ADMIN:
        return
    with open_accounts(world.app.state.sysdrill.db_url) as accounts:
        accounts.set_password(ADMIN, PASSWORD)
        accounts.set_disabled(ADMIN, False)
        accounts.set_role(ADMIN, Role.ADMIN)
    response = world.client.post("/api/login", json={"name": ADMIN, "password": PASSWORD})
    assert response.status_code == 200, response.text


_LOGIN_CHANGERS = ("account", "login", "signup", "admin")
"""Routes whose request may change who the client is logged in as."""


# -- targets from the OpenAPI spec -----------------------------------------------------

_SKIPPED = frozenset({"/api/logout", "/logout"})
"""Routes that take nothing a user types and would end the test's login."""
_PUBLIC = frozenset({"/api/login", "/api/signup", "/api/csrf", "/login", "/signup"})


def _usual_path_value(name: str, path: str) -> tuple[Any, ...]:
    if name == "session_id":
        return ("{session}",)
    if name == "item_id":
        return (ITEM,)
    if name == "name" and path.startswith("/api/calculators"):
        return ("roofline", "ring-allreduce", "training-memory")
    if name == "name" and "/admin/users" in path:
        return ("bob",)
    if name == "name" and path.startswith("/calculators"):
        return ("roofline", "chinchilla-model")
    if name == "name" and path.startswith("/progress/charts"):
        return ("reviews", "retention")
    if name == "file_name":
        return ("3f0c9a1b2c3d4e5f.png",)
    return ("x",)


_USUAL_BY_NAME: dict[str, tuple[Any, ...]] = {
    "rating": ("good", "again", "3"),
    "format": ("auto", "csv", "json"),
    "message": ("The answer's unit is wrong.",),
    "password": (PASSWORD,),
    "current": (PASSWORD,),
}
"""Usual values of fields whose schema says only "a string"."""
_USUAL_BY_PATH: dict[tuple[str, str], tuple[Any, ...]] = {
    ("/api/items/{item_id}/reports", "kind"): ("typo", "other"),
    ("/api/export", "format"): ("csv", "json", "apkg"),
    ("/api/login", "name"): (ADMIN,),
}


def _usual_of(schema: dict[str, Any], spec: dict[str, Any]) -> tuple[Any, ...]:
    """Plausible values for a schema (enum members, a small number, a word)."""
    if "$ref" in schema:
        schema = _resolve(spec, schema["$ref"])
    if "enum" in schema:
        return tuple(schema["enum"])
    if "anyOf" in schema:
        return tuple(v for option in schema["anyOf"] for v in _usual_of(option, spec))
    if "default" in schema and schema["default"] is not None:
        return (schema["default"],)
    kind = schema.get("type")
    return {
        "integer": (1, 0),
        "number": (1.0,),
        "boolean": (True, False),
        "array": ([0],),
        "object": ({},),
        "null": (None,),
    }.get(str(kind), ("x", "cloud"))


def _resolve(spec: dict[str, Any], ref: str) -> dict[str, Any]:
    found: Any = spec
    for part in ref.removeprefix("#/").split("/"):
        found = found[part]
    return dict(found)


def _api_targets(app: FastAPI) -> list[Target]:
    spec = app.openapi()
    targets = []
    for path, operations in spec["paths"].items():
        if path in _SKIPPED:
            continue
        for method, operation in operations.items():
            fields = [
                Field(
                    p["name"],
                    p["in"],
                    _usual_path_value(p["name"], path)
                    if p["in"] == "path"
                    else _USUAL_BY_PATH.get((path, p["name"]))
                    or _usual_of(p.get("schema", {}), spec),
                )
                for p in operation.get("parameters", [])
                if p["in"] in ("path", "query")
            ]
            content = operation.get("requestBody", {}).get("content", {})
            for media, body in content.items():
                schema = body.get("schema", {})
                if "$ref" in schema:
                    schema = _resolve(spec, schema["$ref"])
                where = "json" if media == "application/json" else "form"
                properties = schema.get("properties")
                if properties is None:  # a free mapping: settings, planner inputs
                    keys = _FREE_BODY_KEYS.get(path, {"x": ("1",)})
                    fields += [Field(n, where, usual) for n, usual in keys.items()]
                    continue
                for name, prop in properties.items():
                    if prop.get("contentMediaType") or prop.get("format") == "binary":
                        fields.append(Field(name, "file", (b"Front,Back\nA,B\n",)))
                    else:
                        usual = _USUAL_BY_PATH.get((path, name)) or _USUAL_BY_NAME.get(name)
                        fields.append(Field(name, where, usual or _usual_of(prop, spec)))
            targets.append(Target(method.upper(), path, tuple(fields), public=path in _PUBLIC))
    return targets


def _free_body_keys() -> dict[str, dict[str, tuple[Any, ...]]]:
    from sysdrill.web.routes.planner import LABELS

    settings_usual: dict[str, tuple[Any, ...]] = {
        "desired_retention": ("0.9",),
        "learning_steps_minutes": ("1,10",),
        "relearning_steps_minutes": ("10",),
        "maximum_interval_days": ("36500",),
        "fuzz": ("true",),
        "new_per_day": ("20",),
        "reviews_per_day": ("200",),
        "deadline": ("none",),
        "fsrs_parameters": ("none",),
    }
    return {
        "/api/settings": settings_usual,
        "/api/planner": dict.fromkeys(LABELS, ("",)),
    }


_FREE_BODY_KEYS = _free_body_keys()
"""Keys (and usual values) of the bodies the spec gives as free mappings."""


# -- targets from the HTML forms -------------------------------------------------------


class _Forms(HTMLParser):
    """Every ``<form>`` of a page: where it goes, how, and its named fields."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.forms: list[Target] = []
        self._open: dict[str, Any] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            action = a.get("action") or self.page
            self._open = {
                "method": (a.get("method") or "get").upper(),
                "path": urlsplit(action).path or self.page,
                "fields": {},
            }
            return
        if self._open is None:
            return
        fields: dict[str, list[Any]] = self._open["fields"]
        name = a.get("name")
        if tag == "select" and name:
            self._select = name
            fields.setdefault(name, [])
        elif tag == "option" and self._select is not None:
            fields[self._select].append(a.get("value", ""))
        elif tag in ("input", "textarea", "button") and name:
            kind = a.get("type", "text").lower()
            where = "file" if kind == "file" else "form"
            value: Any = b"Front,Back\nA,B\n" if where == "file" else a.get("value", "x")
            if kind == "checkbox":
                value = a.get("value", "on")
            fields.setdefault(name, []).append((where, value))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "form" and self._open is not None:
            fields = []
            for name, values in self._open["fields"].items():
                wheres = {v[0] for v in values if isinstance(v, tuple)}
                where = "file" if "file" in wheres else "form"
                usual = tuple(v[1] if isinstance(v, tuple) else v for v in values) or ("x",)
                fields.append(Field(name, where, usual))
            method = self._open["method"]
            self.forms.append(Target(method, self._open["path"], tuple(fields)))
            self._open = None


def _page_paths(app: FastAPI) -> list[str]:
    """Every page a browser opens: each GET route outside the API, its ids filled in."""
    from sysdrill.napkin.calculators.registry import calculator_names

    pages = []
    for router in app.state.routers:
        for route in router.routes:
            path = getattr(route, "path", "")
            if "GET" not in getattr(route, "methods", ()) or path.startswith("/api"):
                continue
            if path.endswith(".svg") or path.startswith(("/media", "/export/download")):
                continue
            if "{" not in path:
                pages.append(path)
            elif path == "/calculators/{name}":
                pages += [f"/calculators/{name}" for name in calculator_names()]
            elif path == "/items/{item_id}":
                pages.append(f"/items/{ITEM}")
            elif path.startswith("/sessions/{session_id}"):
                pages.append(path.replace("{session_id}", "{session}"))
    return sorted(set(pages))


def _page_route_targets(app: FastAPI) -> list[Target]:
    """The routes outside the API whose path names something: the path is typed too."""
    import re

    targets = []
    for router in app.state.routers:
        for route in router.routes:
            path = getattr(route, "path", "")
            if path.startswith("/api") or "{" not in path or path in _SKIPPED:
                continue
            names = re.findall(r"{(\w+)}", path)
            for method in sorted(getattr(route, "methods", ())):
                fields = tuple(Field(n, "path", _usual_path_value(n, path)) for n in names)
                targets.append(Target(method, path, fields))
    return targets


def _marked(targets: list[Target]) -> list[Any]:
    return [pytest.param(t, id=t.label) for t in targets]


# Built once at collection: the route table and spec need no database.
_SPEC_APP = make_app(Path(tempfile.mkdtemp(prefix="sysdrill-spec-")))
API_TARGETS = _api_targets(_SPEC_APP) + _page_route_targets(_SPEC_APP)
PAGES = _page_paths(_SPEC_APP)


# -- sending -----------------------------------------------------------------------------


def _hostile(where: str) -> st.SearchStrategy[Any]:
    text = st.one_of(
        st.sampled_from(HOSTILE_TEXT),
        st.integers(min_value=-(10**40), max_value=10**40).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.text(max_size=30),
    )
    if where == "json":
        return st.one_of(text, st.sampled_from(HOSTILE_JSON))
    if where == "file":
        return st.sampled_from(
            (b"", b"\x00\x00\x00", b"\xff\xfe" + b"x\x00" * 50, HUGE.encode(), b"PK\x03\x04")
        )
    return text


def _value(field: Field) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(field.usual), _hostile(field.where))


def _send(world: World, target: Target, values: dict[Field, Any]) -> Any:
    path = target.path.replace("{session}", str(world.session_id))
    query: dict[str, str] = {}
    json_body: dict[str, Any] = {}
    form: dict[str, str] = {}
    files: dict[str, tuple[str, bytes, str]] = {}
    for field_, value in values.items():
        if field_.where == "path":
            shown = _as_text(value)[:URL_VALUE_CHARS].replace("{session}", str(world.session_id))
            path = path.replace("{" + field_.name + "}", quote(shown, safe="") or "%20")
        elif field_.where == "query" or (target.method == "GET" and field_.where == "form"):
            query[field_.name] = _as_text(value)[:URL_VALUE_CHARS]
        elif field_.where == "json":
            json_body[field_.name] = value
        elif field_.where == "file":
            files[field_.name] = ("cards.csv", value, "text/csv")
        else:
            form[field_.name] = _as_text(value)
    client = world.anonymous if target.public else world.client
    if any(f.where == "json" for f in target.fields):
        import json

        # NaN and infinity go as JSON's unofficial literals, which Python's reader takes.
        content = json.dumps(json_body, allow_nan=True).encode()
        headers = {"Content-Type": "application/json"}
        return client.request(target.method, path, params=query, content=content, headers=headers)
    if target.method == "GET":
        return client.get(path, params=query, follow_redirects=False)
    return client.request(
        target.method,
        path,
        params=query,
        data=form or None,
        files=files or None,
        follow_redirects=False,
    )


URL_VALUE_CHARS = 8000
"""Longest value sent in a URL (the client refuses a longer URL; the server's limit is lower)."""


def _as_text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return str(value)


def _check(world: World, target: Target, values: dict[Field, Any]) -> None:
    before = len(world.tracebacks.found)
    response = _send(world, target, values)
    sent = {f"{f.where}:{f.name}": _shown(v) for f, v in values.items()}
    trace = "\n".join(world.tracebacks.found[before:])
    assert response.status_code < 500, (
        f"{target.label} answered {response.status_code} to {sent}:\n"
        f"{response.text[:300] if target.path.startswith('/api') else ''}\n{trace}"
    )
    if not target.public and any(word in target.path for word in _LOGIN_CHANGERS):
        _relogin(world)
    if "settings" in target.path and target.method != "GET":
        # What a write stored must not break a later start (issue 29: a saved setting
        # of 99999999999999999999999 broke every page after it).
        for later in AFTER_SETTINGS:
            response = world.client.get(later)
            trace = "\n".join(world.tracebacks.found[before:])
            assert response.status_code < 500, (
                f"after {target.label} with {sent}, GET {later} answered "
                f"{response.status_code}\n{trace}"
            )


AFTER_SETTINGS = ("/api/settings", "/settings", "/api/progress", "/", "/practice")
"""Pages read after every settings write: each reads the stored settings."""


def _shown(value: Any) -> Any:
    if isinstance(value, str | bytes) and len(value) > 60:
        return f"{value[:20]!r}... ({len(value)} chars)"
    return value


_SETTINGS = settings(
    max_examples=8,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # the message names the values: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _draw_values(data: st.DataObject, fields: tuple[Field, ...]) -> dict[Field, Any]:
    """Usual values, but one or two fields (or every one, now and then) hostile."""
    if not fields:
        return {}
    hostile = data.draw(
        st.one_of(
            st.sets(st.sampled_from(fields), min_size=1, max_size=2),
            st.just(set(fields)),
        ),
        label="hostile fields",
    )
    return {
        f: data.draw(
            _hostile(f.where) if f in hostile else st.sampled_from(f.usual),
            label=f"{f.where}:{f.name}",
        )
        for f in fields
    }


KEY_VALUES: tuple[Any, ...] = (HUGE, "-1", "NaN", "-inf", "1e999", "x" * 5000)
"""Sent to every field in turn, the others usual: the values issue 29 met."""


def _each_field_in_turn(world: World, target: Target) -> None:
    for hostile in target.fields:
        values = [*KEY_VALUES, 10**30] if hostile.where == "json" else KEY_VALUES
        if hostile.where == "file":
            values = (HUGE.encode(),)
        for value in values:
            sent = {f: value if f is hostile else f.usual[0] for f in target.fields}
            _check(world, target, sent)


@pytest.mark.parametrize("target", _marked(API_TARGETS))
@_SETTINGS
@given(data=st.data())
def test_no_api_parameter_or_body_field_gives_a_server_error(
    world: World, target: Target, data: st.DataObject
) -> None:
    _check(world, target, _draw_values(data, target.fields))


@pytest.mark.parametrize("target", _marked(API_TARGETS))
def test_a_huge_or_malformed_value_in_each_api_field_is_refused_not_a_server_error(
    world: World, target: Target
) -> None:
    _each_field_in_turn(world, target)


def _forms_of(world: World, page: str) -> list[Target]:
    if page not in world.forms:
        path = page.replace("{session}", str(world.session_id))
        response = world.client.get(path)
        assert response.status_code < 500, f"GET {path}: {response.status_code}"
        parser = _Forms(path)
        parser.feed(response.text)
        world.forms[page] = [f for f in parser.forms if f.path not in _SKIPPED]
    return world.forms[page]


@pytest.mark.parametrize("page", PAGES)
@_SETTINGS
@given(data=st.data())
def test_no_form_field_on_a_page_gives_a_server_error(
    world: World, page: str, data: st.DataObject
) -> None:
    forms = _forms_of(world, page)
    if not forms:
        return
    form = data.draw(st.sampled_from(forms), label="form")
    _check(world, form, _draw_values(data, form.fields))


@pytest.mark.parametrize(
    "page",
    PAGES,
)
def test_a_huge_or_malformed_value_in_each_form_field_is_refused_not_a_server_error(
    world: World, page: str
) -> None:
    for form in _forms_of(world, page):
        _each_field_in_turn(world, form)
