"""Compare sysdrill's Anki-HTML-to-Markdown converter with html2text on fidelity cases.

Each case is a field as Anki decks hold it and what a faithful conversion must
keep (a substring the Markdown must contain, and one it must not). The cases
are those of tests/interop/test_html_to_markdown.py plus the fidelity fixture
of tests/interop/conftest.py; lines are compared stripped, with bullet marks
unified, so indentation and ``*`` against ``-`` do not count as losses.
MathJax delimiters are left out: sysdrill rewrites them after converting,
which would work after either converter. Accuracy only: nothing here is timed.
html2text is not a sysdrill dependency; install it to run the comparison
(markdownify was not in the package index this project draws from).

Usage: ``python bench/html_markdown_bench.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from sysdrill.interop.formats._common import html_to_markdown

CASES: dict[str, tuple[str, str, str | None]] = {
    # name: (field HTML, must contain, must not contain)
    "superscript": ("10<sup>4</sup> tokens", "10^{4}", "104"),
    "subscript": ("H<sub>2</sub>O", "H_{2}O", "H2O"),
    "ruby": ("<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>", "漢字(かんじ)", None),
    "ruby without rp": ("<ruby>漢字<rt>かんじ</rt></ruby>", "漢字(かんじ)", "漢字かんじ"),
    "table header row": (
        "<table><tr><th>GPU</th><th>HBM</th></tr><tr><td>H100</td><td>80</td></tr></table>",
        "---",
        None,
    ),
    "pipe inside a cell": (
        "<table><tr><td>a</td></tr><tr><td>80 GB|HBM3</td></tr></table>",
        "80 GB\\|HBM3",
        None,
    ),
    "code block": ("<pre><code>if a &lt; b:\n    x = 1</code></pre>", "if a < b:\n    x = 1", None),
    "escaped script stays text": ("Shown: &lt;script&gt;alert(1)", "&lt;script", "<script"),
    "code span": ("<code>&lt;b&gt;</code>", "`<b>`", None),
    "ordered list": ("<ol><li>one</li><li>two</li></ol>", "1. one\n", None),
    "bullet list": ("<ul><li>one</li><li>two</li></ul>", "one\n", None),
    "bold": ("<b>HBM</b> is fast", "**HBM**", None),
    "cloze kept": ("{{c1::NCCL::lib}} runs", "{{c1::NCCL::lib}}", None),
    "script dropped": ("a<script>alert(1)</script>b", "ab", "alert"),
    "line break": ("one<br>two", "one\ntwo", None),
}


def _ours(html: str) -> str:
    return html_to_markdown(html)[0]


def _html2text() -> Callable[[str], str] | None:
    try:
        import html2text  # type: ignore[import-not-found]
    except ImportError:
        return None
    converter = html2text.HTML2Text()
    converter.body_width = 0
    return lambda html: str(converter.handle(html))


def _normal(text: str) -> str:
    """Lines stripped and bullet marks unified, so layout choices do not count as losses."""
    lines = [line.strip() for line in text.splitlines()]
    return "\n".join(line[2:] if line[:2] in ("- ", "* ", "+ ") else line for line in lines)


def _score(convert: Callable[[str], str]) -> tuple[int, list[str]]:
    failed = []
    for name, (html, keep, lose) in CASES.items():
        text = _normal(convert(html))
        keep = _normal(keep)
        if keep not in text or (lose is not None and lose in text):
            failed.append(name)
    return len(CASES) - len(failed), failed


def main() -> None:
    """Print how many cases each converter keeps, and which ones it loses."""
    converters: dict[str, Callable[[str], str] | None] = {
        "sysdrill (formats/_common.py)": _ours,
        "html2text": _html2text(),
    }
    for name, convert in converters.items():
        if convert is None:
            print(f"{name}: not installed")
            continue
        kept, failed = _score(convert)
        print(f"{name}: {kept}/{len(CASES)} cases kept; lost: {', '.join(failed) or 'none'}")


if __name__ == "__main__":
    main()
