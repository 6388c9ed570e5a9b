"""Compare sysdrill's text-decoding policy with charset-normalizer on the hostile-input cases.

For each case of tests/interop (UTF-16 with and without a byte-order mark,
Latin-1, Windows-1252, binary garbage) it prints what each reader makes of the
bytes: the text read, or the refusal. sysdrill's policy is
``sysdrill.interop.text.read_source_text``; charset-normalizer is asked for its
best guess (``from_bytes(data).best()``), a None guess counting as a refusal.
Accuracy only: nothing here is timed. charset-normalizer is not a sysdrill
dependency; install it to run the comparison.

Usage: ``python bench/charset_detection_bench.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sysdrill.errors import SysdrillError
from sysdrill.interop.text import read_source_text


def _same(text: str, codec: str) -> tuple[bytes, str]:
    """A case whose bytes are ``text`` in ``codec`` and whose right reading is ``text``."""
    return text.encode(codec), text


CASES: dict[str, tuple[bytes, str | None]] = {
    # name: (bytes, the text a correct reader returns, or None when it must refuse)
    "utf-16 with BOM": ("Grüße ≈ 6×10⁻⁵?\tJa\n".encode("utf-16"), "Grüße ≈ 6×10⁻⁵?\tJa\n"),
    "utf-16-be with BOM": (
        b"\xfe\xff" + "Café?\tTrès bien\n".encode("utf-16-be"),
        "Café?\tTrès bien\n",
    ),
    "utf-16-le without BOM": ("Grüße ≈ 6×10⁻⁵?\n".encode("utf-16-le"), "Grüße ≈ 6×10⁻⁵?\n"),
    "latin-1 csv": _same("front;back\nCafé crème?;Oui, très\n", "latin-1"),
    "latin-1 markdown": _same("Q: Café?\nA: Très bien\n", "latin-1"),
    "latin-1 sentence": _same("Qu'est-ce qu'un réseau à débit élevé ?\n", "latin-1"),
    "windows-1252 quotes": _same("“Smart” quotes – and a dash — café\n", "cp1252"),
    "binary garbage": (b"\x00\x01\x02garbage\x00" * 10, None),
    "png header": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None),
    "broken utf-16": (b"\xff\xfeQ\x00:\x00 \x00\x00\xd8", None),
}


def sysdrill_reads(data: bytes) -> str | None:
    """The text sysdrill's policy reads from ``data``, or None when it refuses."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.txt"
        path.write_bytes(data)
        try:
            return read_source_text(path).text
        except SysdrillError:
            return None


def normalizer_reads(data: bytes) -> str | None:
    """The text charset-normalizer's best guess gives, or None when it has none."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return None if best is None else str(best)


def main() -> None:
    try:
        import charset_normalizer  # noqa: F401
    except ImportError:
        readers = {"sysdrill": sysdrill_reads}
    else:
        readers = {"sysdrill": sysdrill_reads, "charset-normalizer": normalizer_reads}
    right = dict.fromkeys(readers, 0)
    for name, (data, text) in CASES.items():
        expected = text
        cells = []
        for reader_name, reader in readers.items():
            got = reader(data)
            correct = got == expected
            right[reader_name] += correct
            shown = "refused" if got is None else repr(got[:28])
            cells.append(f"{reader_name}: {'ok ' if correct else 'BAD'} {shown}")
        print(f"{name:22} " + " | ".join(cells))
    for reader_name, count in right.items():
        print(f"{reader_name}: {count} of {len(CASES)} cases read as expected")


if __name__ == "__main__":
    main()
