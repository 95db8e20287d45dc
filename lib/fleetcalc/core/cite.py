"""A source as a reader cites it: the book's own numbering (section, equation, table, figure), without
the line numbers of the seed text that the ledger and the tests keep for the audit.

    for_reader("Vol. 2 Ch. 2, lines 1334 and 1768 (peak per watt of TDP)")
        -> "Vol. 2 Ch. 2 (peak per watt of TDP)"
    for_reader("Vol. 2 Ch. 3 §3.1 (line 2535); Fig. 3.3 caption (line 2547)")
        -> "Vol. 2 Ch. 3 §3.1; Fig. 3.3 caption"
"""
from __future__ import annotations

import re

__all__ = ["for_reader", "LINE_REF"]

_NUM = r"\d{2,5}(?:\s?[–-]\s?\d{1,5})?"
_LIST = rf"{_NUM}(?:\s*(?:,|and|&)\s*{_NUM})*"
#: a seed line reference: "line 2535", "lines 1334 and 1768", "lines 409–426, 616–619", "第 123 行"
LINE_REF = re.compile(rf"\b(?:seed\s+)?lines?\s+{_LIST}|第\s?{_NUM}\s?行")
_PAREN = re.compile(rf"\s*\(\s*(?:seed\s+)?lines?\s+{_LIST}\s*\)|\s*（\s*第\s?{_NUM}\s?行\s*）")
_SEP = re.compile(rf"\s*[,;]\s*(?=(?:seed\s+)?lines?\s+{_LIST})")


def for_reader(text: str) -> str:
    """``text`` with its seed line references taken out (parenthesised ones whole, the rest with the
    separator before them), and the punctuation left tidy."""
    if not text:
        return text
    out = _PAREN.sub("", text)
    out = _SEP.sub(" ", out)
    out = LINE_REF.sub("", out)
    out = re.sub(r"\(\s*\)", "", out)
    out = re.sub(r"\(\s*[,;:]\s*", "(", out)
    out = re.sub(r"\s*[,;:]\s*\)", ")", out)
    out = re.sub(r"\s+([,;.)])", r"\1", out)
    out = re.sub(r"([,;])\s*(?=[,;]|$)", "", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    return out.rstrip(",;: ")
