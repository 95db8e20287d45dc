"""The instructor's roster: student ids (and, optionally, names, emails and LMS ids) from a CSV."""
from __future__ import annotations

import collections
import csv
import re
from pathlib import Path


def read_roster(path: Path) -> list[str]:
    """Student ids from a roster CSV (a column named ``id``, ``student`` or ``student_id``; else the first)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"roster {path} is empty")
    header = [h.strip().lower() for h in rows[0]]
    col = next((header.index(h) for h in ("id", "student_id", "student") if h in header), None)
    body = rows[1:] if col is not None else rows
    col = col or 0
    ids = [r[col].strip() for r in body if len(r) > col and r[col].strip()]
    bad = [i for i in ids if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.\-]*", i)]
    if bad:
        raise ValueError(f"roster {path}: student ids may hold letters, digits, '.' and '-' only; got {bad[:3]}")
    if len(set(ids)) != len(ids):
        dup = [i for i, n in collections.Counter(ids).items() if n > 1]
        raise ValueError(f"roster {path}: student id(s) listed twice: {dup[:3]}")
    return ids


def read_people(path: Path) -> dict[str, dict]:
    """{student id: {"name", "email", "sis_id", "canvas_id", "section"}} from a roster CSV (the
    optional columns ``name`` (or ``first``/``last`` names), ``email``, ``sis_id``, ``canvas_id``,
    ``section``; missing ones are empty)."""
    ids = read_roster(path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or not any(h and h.strip().lower() in ("id", "student_id", "student") for h in rows[0]):
        return {i: {} for i in ids}
    out = {}
    for r in rows:
        r = {(k or "").strip().lower(): (v or "").strip() for k, v in r.items()}
        sid = r.get("id") or r.get("student_id") or r.get("student")
        if not sid:
            continue
        name = r.get("name") or " ".join(x for x in (r.get("first name") or r.get("first", ""),
                                                     r.get("last name") or r.get("last", "")) if x)
        out[sid] = {"name": name, "email": r.get("email") or r.get("email address", ""),
                    "sis_id": r.get("sis_id") or r.get("sis user id", ""), "canvas_id": r.get("canvas_id", ""),
                    "section": r.get("section", "")}
    return out
