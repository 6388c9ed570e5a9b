r"""The one renderer of the web app: Markdown and LaTeX to safe HTML, and safe SVG.

Every page shows item text through :func:`render_markdown` (Jinja's ``md`` and
``md_inline`` filters) and item visuals through :func:`render_svg`. Imported
content is untrusted, so every string this module returns has passed through
nh3 with a fixed allow-list: scripts, event handlers, ``javascript:`` links and
foreign SVG payloads come out inert whatever the Markdown or LaTeX produced.

LaTeX math (``$...$``, ``$$...$$``, ``\(...\)``, ``\[...\]``) becomes MathML on
the server with latex2mathml, so pages need no JavaScript to show formulas.

Media of the vault (``![alt](media/x.png)``, ``[sound:media/x.mp3]``) become
``<img>`` and ``<audio controls>`` pointing at ``/media/``; nh3 keeps an ``src``
only when it is such a ``/media/<name>`` path, so no item can load anything else.
"""

from __future__ import annotations

import functools
import html
import re
import secrets
import threading
from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from sysdrill.content.media import SOUND_REF, is_safe_media_name
from sysdrill.study.sessions.text import separate_headings

__all__ = ["render_inline", "render_markdown", "render_svg"]

_MATHML_TAGS = frozenset(
    {
        "math",
        "semantics",
        "annotation",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msup",
        "msub",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "mtable",
        "mtr",
        "mtd",
        "munder",
        "mover",
        "munderover",
        "menclose",
        "mpadded",
        "mphantom",
        "merror",
    }
)
_MATHML_ATTRIBUTES = frozenset(
    {
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "accent",
        "accentunder",
        "columnalign",
        "columnspacing",
        "rowspacing",
        "linethickness",
        "notation",
        "width",
        "height",
        "depth",
        "movablelimits",
        "scriptlevel",
        "displaystyle",
        "encoding",
    }
)
_HTML_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "del",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "span",
        "strong",
        "sub",
        "sup",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
_SVG_TAGS = frozenset(
    {
        "svg",
        "g",
        "path",
        "rect",
        "circle",
        "ellipse",
        "line",
        "polyline",
        "polygon",
        "text",
        "tspan",
        "title",
        "desc",
        "defs",
        "marker",
        "linearGradient",
        "stop",
    }
)
_SVG_ATTRIBUTES = frozenset(
    {
        "viewbox",
        "width",
        "height",
        "x",
        "y",
        "x1",
        "y1",
        "x2",
        "y2",
        "cx",
        "cy",
        "r",
        "rx",
        "ry",
        "d",
        "points",
        "fill",
        "stroke",
        "stroke-width",
        "stroke-dasharray",
        "opacity",
        "fill-opacity",
        "transform",
        "font-size",
        "font-family",
        "font-weight",
        "text-anchor",
        "dominant-baseline",
        "role",
        "aria-label",
        "id",
        "marker-end",
        "marker-start",
        "markerwidth",
        "markerheight",
        "refx",
        "refy",
        "orient",
        "offset",
        "stop-color",
        "preserveaspectratio",
    }
)

_SVG_CAMEL_CASE = frozenset(
    {"viewBox", "markerWidth", "markerHeight", "refX", "refY", "preserveAspectRatio"}
)

_MATH = re.compile(
    r"(?P<code>`+[^`]*`+)"
    r"|\$\$(?P<dollars>.+?)\$\$"
    r"|\\\[(?P<bracket>.+?)\\\]"
    r"|\\\((?P<paren>.+?)\\\)"
    # An inline $...$ opens before a non-space and closes after one, not before a digit,
    # so prices such as "$2.50 and $3" stay text.
    r"|\$(?=\S)(?P<dollar>[^$\n]+?)(?<=\S)\$(?!\d)",
    re.DOTALL,
)
_VAULT_IMAGE = re.compile(r'(<img src=")(media/)')
_SOUND_OR_CODE = re.compile(r"(?P<code>`+[^`]*`+)|" + SOUND_REF.pattern)


def _media_source(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: an ``src`` survives only as ``/media/<safe name>``."""
    if attribute != "src":
        return value
    name = value.removeprefix("/media/")
    return value if name != value and is_safe_media_name(name) else None


_lock = threading.Lock()


@functools.cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # Raw HTML in the source is shown as text, never passed through; nh3 runs anyway.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _cleaner(
    tags: frozenset[str],
    attributes: dict[str, set[str]],
    attribute_filter: Callable[[str, str, str], str | None] | None = None,
) -> Callable[[str], str]:
    import nh3

    schemes = {"http", "https", "mailto"}
    cleaner = getattr(nh3, "Cleaner", None)
    if cleaner is not None:
        built = cleaner(
            tags=set(tags),
            attributes=attributes,
            url_schemes=schemes,
            attribute_filter=attribute_filter,
        )
        return built.clean  # type: ignore[no-any-return]

    def clean(text: str) -> str:
        return nh3.clean(
            text,
            tags=set(tags),
            attributes=attributes,
            url_schemes=schemes,
            attribute_filter=attribute_filter,
        )

    return clean


@functools.cache
def _html_cleaner() -> Callable[[str], str]:
    attributes: dict[str, set[str]] = {
        "a": {"href", "title"},
        "code": {"class"},
        # A numbered step split from the one before it by a bullet list starts a new list.
        "ol": {"start"},
        "span": {"class"},
        "th": {"align"},
        "td": {"align"},
        "math": {"display"},
        "img": {"src", "alt"},
        "audio": {"src", "controls"},
    }
    for tag in _MATHML_TAGS:
        attributes.setdefault(tag, set()).update(_MATHML_ATTRIBUTES)
    return _cleaner(_HTML_TAGS | _MATHML_TAGS | {"img", "audio"}, attributes, _media_source)


@functools.cache
def _svg_cleaner() -> Callable[[str], str]:
    # SVG attribute names are case-sensitive once parsed (viewBox, refX): allow both spellings.
    names = set(_SVG_ATTRIBUTES) | _SVG_CAMEL_CASE
    attributes = {tag: set(names) for tag in _SVG_TAGS}
    return _cleaner(_SVG_TAGS, attributes)


def _mathml(latex: str, *, block: bool) -> str:
    """MathML for one formula, or the formula as code when latex2mathml cannot read it."""
    from latex2mathml.converter import convert

    try:
        return str(convert(latex.strip(), display="block" if block else "inline"))
    except Exception:  # any LaTeX it cannot convert is shown as written
        return f"<code>{html.escape(latex)}</code>"


def _marker(text: str) -> str:
    """A word that does not occur in ``text``, to hold formulas and sounds in its place.

    Markdown would mangle MathML and ``<audio>``, so they are replaced by numbered
    placeholders before it runs and put back after. A fixed placeholder word would
    let an item that contains it (by chance or on purpose) point at a formula that
    does not exist; a random word that the text does not contain cannot.
    """
    while True:
        marker = "SYSDRILL" + secrets.token_hex(8).upper()
        if marker not in text:
            return marker


def _render(text: str, *, inline: bool) -> str:
    marker = _marker(text)
    math_mark, sound_mark = f"{marker}M", f"{marker}S"
    formulas: list[str] = []

    def hold(match: re.Match[str]) -> str:
        if match.group("code") is not None:
            return match.group("code")
        block = match.group("dollars") is not None or match.group("bracket") is not None
        latex = next(g for g in match.group("dollars", "bracket", "paren", "dollar") if g)
        formulas.append(_mathml(latex, block=block))
        return f"{math_mark}{len(formulas) - 1}Z"

    sounds: list[str] = []

    def hold_sound(match: re.Match[str]) -> str:
        if match.group("code") is not None:
            return match.group("code")
        sounds.append(html.escape(match.group("name")))
        return f"{sound_mark}{len(sounds) - 1}Z"

    held = _SOUND_OR_CODE.sub(hold_sound, _MATH.sub(hold, text))
    md = _markdown()
    with _lock:
        # MarkdownIt instances are not documented as thread-safe; rendering is cheap.
        rendered = md.renderInline(held) if inline else md.render(held)
    # Only this call's marker is replaced, and only by what it numbered. Each marker
    # is a new pattern that re compiles afresh (about 0.5 ms): skip it when nothing was held.
    if formulas:
        rendered = re.sub(rf"{math_mark}(\d+)Z", lambda m: formulas[int(m.group(1))], rendered)
    rendered = _VAULT_IMAGE.sub(r"\1/\2", rendered)
    if sounds:
        rendered = re.sub(
            rf"{sound_mark}(\d+)Z",
            lambda m: f'<audio controls src="/media/{sounds[int(m.group(1))]}"></audio>',
            rendered,
        )
    return _html_cleaner()(rendered)


def render_markdown(text: str | None) -> Markup:
    """Markdown with LaTeX math as sanitized HTML (block level: paragraphs, lists).

    Args:
        text: Untrusted Markdown; None renders as nothing.

    Returns:
        HTML safe to put in a page as is.
    """
    if not text:
        return Markup("")
    # Bold heading lines (napkin math's sections) keep a line of their own.
    return Markup(_render(separate_headings(text), inline=False))  # sanitized by nh3 above


def render_inline(text: str | None) -> Markup:
    """Like :func:`render_markdown` but without a wrapping paragraph (titles, options)."""
    if not text:
        return Markup("")
    return Markup(_render(text, inline=True))  # sanitized by nh3 above


def render_svg(svg: str) -> Markup:
    """An untrusted SVG document as inert inline SVG (no scripts, handlers or links).

    Args:
        svg: The SVG file's text.

    Returns:
        Sanitized SVG markup.
    """
    # An XML prolog or doctype is not HTML; html5ever would show it as text.
    body = re.sub(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", "", svg, flags=re.I)
    return Markup(_svg_cleaner()(body))  # sanitized by nh3 above
