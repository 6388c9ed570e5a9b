"""Which field of a note type becomes which part of an item: the field-mapping heuristic.

A field plays one :class:`FieldRole`. Roles come, in order of precedence,
from ``--map FIELD=role`` given on the command line, from a mapping saved in
the vault's ``sysdrill.yaml`` by an earlier import, and from the heuristic:

1. the first card template, when the reader has it (:class:`TemplateFields`):
   every field its front shows is the question, and the first field only its
   back shows is the answer, a text field before a number or an id;
2. a field whose name (case- and accent-insensitive, in English, French,
   German, Spanish, Italian, Portuguese, Dutch, Russian, Japanese or Chinese)
   means front/question, back/answer, extra/notes, source or tags takes that
   role (:data:`ROLE_NAMES`); the first such field wins a question or answer
   role, later ones become extras;
3. otherwise the first unmapped field is the question and the next the answer,
   passing over fields that hold a number or an id (``48``, ``9216.43``, a field
   named ``ID`` or ``Rank``) while a text field is left;
4. every other field is an extra (shown under the answer with its name).

``Add Reverse`` (the switch of Anki's optional reversed note type) is ignored:
it decides whether there is a reverse card, it is not text to study.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from sysdrill.content.yaml_source import SAFE_LOADER
from sysdrill.errors import ImportFailed, UsageError

__all__ = [
    "MAPPING_FILE",
    "ROLE_NAMES",
    "FieldRole",
    "TemplateFields",
    "map_fields",
    "parse_field_maps",
    "read_saved_maps",
    "saved_maps_text",
]

MAPPING_FILE = "sysdrill.yaml"
"""Vault file holding saved mappings under ``import.field_maps``."""


class FieldRole(StrEnum):
    """What a note field becomes in an item."""

    QUESTION = "question"
    ANSWER = "answer"
    EXTRA = "extra"
    SOURCE = "source"
    TAGS = "tags"
    IGNORE = "ignore"


ROLE_NAMES: dict[FieldRole, frozenset[str]] = {
    FieldRole.QUESTION: frozenset(
        "front question text q expression word term prompt recto vorderseite frage "
        "anverso pregunta frente domanda fronte pergunta vraag voorkant "
        "вопрос лицо 表面 質問 问题 問題 正面".split()
    ),
    FieldRole.ANSWER: frozenset(
        "back answer a meaning definition response verso reponse ruckseite antwort "
        "reverso respuesta risposta retro resposta achterkant "
        "ответ оборот 裏面 答え 回答 答案 背面".split()
    ),
    FieldRole.EXTRA: frozenset(
        "extra back_extra notes note remarks comment comments hint example examples "
        "explanation remarque notizen anmerkung nota notas примечание 備考 メモ 备注".split()
    ),
    FieldRole.SOURCE: frozenset(
        "source sources reference references ref citation quelle fuente fonte bron "
        "источник 出典 出处 来源".split()
    ),
    FieldRole.TAGS: frozenset("tags tag etiquettes schlagworter теги タグ 标签".split()),
    FieldRole.IGNORE: frozenset({"add_reverse"}),
}
"""Field names (normalised by :func:`_normal`) that take each role."""


_NUMBER_NAMES = frozenset(
    "id guid uuid number no nr num nummer numero rank ranking freq frequency index idx "
    "position pos count sort order key код номер 番号 编号 序号 頻度 频率".split()
)
"""Field names (normalised) that hold a number or an id, never the text to learn."""
_NUMBER = re.compile(r"[#№]?\s*[-+]?\d[\d,.\s_']*%?")
_TAGS = re.compile(r"<[^>]*>")


@dataclass(frozen=True, slots=True)
class TemplateFields:
    """The fields a note type's first card template shows, in template order.

    Template-aware readers find them (:func:`~sysdrill.interop.formats.anki_template.
    shown_fields`); the heuristic takes what the front shows as the question and
    what only the back shows as the answer.
    """

    front: tuple[str, ...] = ()
    back_only: tuple[str, ...] = ()


def _normal(name: str) -> str:
    """Case- and accent-insensitive form of a field name; spaces become ``_``."""
    decomposed = unicodedata.normalize("NFKD", name.strip().casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return "_".join(unicodedata.normalize("NFKC", bare).split())


def _heuristic_role(name: str) -> FieldRole | None:
    normal = _normal(name)
    for role, names in ROLE_NAMES.items():
        if normal in names or normal.replace("_", "") in names:
            return role
    return None


def _is_number_or_id(name: str, value: str | None) -> bool:
    """Whether a field holds a number or an id (by its name, or by its value when given)."""
    normal = _normal(name)
    if normal in _NUMBER_NAMES or normal.endswith("_id") or normal.startswith("id_"):
        return True
    if value is None:
        return False
    text = _TAGS.sub("", value).replace("&nbsp;", " ").strip()
    return bool(text) and _NUMBER.fullmatch(text) is not None


def _first_text(
    names: Sequence[str], values: Mapping[str, str], *, fallback: bool = True
) -> str | None:
    """The first of ``names`` that holds text, else (with ``fallback``) the first one."""
    for name in names:
        if not _is_number_or_id(name, values.get(name)):
            return name
    return names[0] if names and fallback else None


def map_fields(
    fields: Sequence[str],
    *,
    given: Mapping[str, FieldRole] | None = None,
    shown: TemplateFields | None = None,
    values: Sequence[str] = (),
) -> dict[str, FieldRole]:
    """Give every field of a note type its role.

    Args:
        fields: The note type's field names, in order.
        given: Roles fixed by ``--map`` or a saved mapping, by field name
            (matched case-insensitively); they win over the heuristic.
        shown: The fields the note type's first card template shows, when known.
        values: A note's field values (HTML), in field order, to tell a field
            holding a number or an id from one holding text.

    Returns:
        Each field name and its role, in field order. With templates, every field
        the front shows is a question (the card's front is all of them); without,
        exactly one field is the question (when there is any field). At most one
        field is the answer.
    """
    fixed = {name.casefold(): role for name, role in (given or {}).items()}
    roles: dict[str, FieldRole | None] = {name: fixed.get(name.casefold()) for name in fields}
    by_name = dict(zip(fields, values, strict=False))
    claimed = {role for role in roles.values() if role is not None}
    if shown is not None:
        _roles_from_template(roles, claimed, shown, by_name)
    for name in fields:
        if roles[name] is not None:
            continue
        role = _heuristic_role(name)
        if role in (FieldRole.QUESTION, FieldRole.ANSWER):
            if role in claimed:
                role = FieldRole.EXTRA
            else:
                claimed.add(role)
        roles[name] = role
    for wanted in (FieldRole.QUESTION, FieldRole.ANSWER):
        if wanted in claimed:
            continue
        free = _first_text([name for name in fields if roles[name] is None], by_name)
        if free is not None:
            roles[free] = wanted
            claimed.add(wanted)
    return {name: roles[name] or FieldRole.EXTRA for name in fields}


def _roles_from_template(
    roles: dict[str, FieldRole | None],
    claimed: set[FieldRole],
    shown: TemplateFields,
    values: Mapping[str, str],
) -> None:
    """Question and answer from what the card template shows (``roles`` is updated)."""
    front = [name for name in shown.front if name in roles and roles[name] is None]
    if front and FieldRole.QUESTION not in claimed:
        for name in front:
            roles[name] = FieldRole.QUESTION
        claimed.add(FieldRole.QUESTION)
    back = [name for name in shown.back_only if name in roles and roles[name] is None]
    answer = _first_text(back, values)
    if answer is not None and FieldRole.ANSWER not in claimed:
        roles[answer] = FieldRole.ANSWER
        claimed.add(FieldRole.ANSWER)


def parse_field_maps(values: Sequence[str]) -> dict[str, FieldRole]:
    """Read ``--map`` values such as ``Vorderseite=question``.

    Raises:
        UsageError: If a value is not ``FIELD=role`` or names an unknown role.
    """
    result: dict[str, FieldRole] = {}
    for value in values:
        field, sep, role = value.rpartition("=")
        if not sep or not field.strip():
            raise UsageError(
                f"--map '{value}' is not FIELD=role; write for example --map Vorderseite=question"
            )
        try:
            result[field.strip()] = FieldRole(role.strip().lower())
        except ValueError:
            roles = ", ".join(r.value for r in FieldRole)
            raise UsageError(
                f"--map '{value}': unknown role '{role}'; use one of: {roles}"
            ) from None
    return result


def _load(root: Path) -> dict[str, Any]:
    path = root / MAPPING_FILE
    if not path.is_file():
        return {}
    try:
        raw = yaml.load(path.read_text("utf-8"), Loader=SAFE_LOADER)  # noqa: S506 - safe
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ImportFailed(f"{path}: cannot read it ({exc}); fix it and import again") from exc
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ImportFailed(f"{path}: is not a mapping; fix it and import again")
    return raw


def read_saved_maps(root: Path) -> dict[str, dict[str, FieldRole]]:
    """Field mappings an earlier import saved, by note type name.

    Unknown roles in the file are left out, so a hand edit cannot stop an import.

    Raises:
        ImportFailed: If ``sysdrill.yaml`` is not valid YAML or not a mapping.
    """
    section = _load(root).get("import")
    maps = section.get("field_maps") if isinstance(section, dict) else None
    if not isinstance(maps, dict):
        return {}
    result: dict[str, dict[str, FieldRole]] = {}
    for note_type, fields in maps.items():
        if not isinstance(fields, dict):
            continue
        known = {
            str(field): FieldRole(role)
            for field, role in fields.items()
            if isinstance(role, str) and role in FieldRole.__members__.values()
        }
        result[str(note_type)] = known
    return result


def saved_maps_text(root: Path, maps: Mapping[str, Mapping[str, FieldRole]]) -> str | None:
    """New text of ``sysdrill.yaml`` with these mappings saved, or None when nothing changes.

    Other keys of the file are kept.
    """
    from sysdrill.interop.vault_writer import dump_yaml

    raw = _load(root)
    section = raw.get("import")
    section = dict(section) if isinstance(section, dict) else {}
    held = section.get("field_maps")
    merged: dict[str, Any] = dict(held) if isinstance(held, dict) else {}
    for note_type, fields in maps.items():
        merged[note_type] = {name: role.value for name, role in fields.items()}
    if merged == held:
        return None
    section["field_maps"] = merged
    return dump_yaml({**raw, "import": section})
