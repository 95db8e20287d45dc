"""The instructor's roster (student ids and, optionally, names, emails and LMS ids, from a CSV), and
who handed a file in as an LMS export says (Canvas's download names, Gradescope's
``submission_metadata.yml``), mapped to roster ids by :class:`Identities`. The uploader an LMS
records is an identity; a file name a student chose is not."""
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


# ----------------------------------------------------------------------------- who handed it in (the LMS says)

# Canvas's "Download Submissions": <sortable name>_[late_]<user id>_<attachment id>_<the student's file name>
CANVAS = re.compile(r"(?P<name>[A-Za-z0-9]*?)_(?:[Ll][Aa][Tt][Ee]_)?(?P<user>\d{1,15})_(?P<file>\d{1,15})_(?P<orig>.+)")
GRADESCOPE_META = "submission_metadata.yml"


def canvas_user(file_name: str) -> str | None:
    """The Canvas user id in a Canvas download's file name (the uploader, not a name the student typed)."""
    m = CANVAS.fullmatch(file_name)
    return m.group("user") if m else None


def read_gradescope(folder: Path) -> dict[str, list[dict]]:
    """{submission folder: [{"name", "sid", "email"}, ...]} from a Gradescope export's
    ``submission_metadata.yml`` (the submitters Gradescope recorded); {} without one.

    The file is Gradescope's, but read with bounds anyway: at most 8 MiB, no YAML aliases, and only
    string fields of the expected shape are kept."""
    import yaml

    path = Path(folder) / GRADESCOPE_META
    if not path.is_file() or path.is_symlink() or path.stat().st_size > 8 << 20:
        return {}

    class Loader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                raise yaml.YAMLError("aliases are not read")
            return super().compose_node(parent, index)

    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - a SafeLoader
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError, ValueError):
        return {}
    out: dict[str, list[dict]] = {}
    if not isinstance(doc, dict):
        return out
    for key, entry in doc.items():
        if not (isinstance(key, str) and re.fullmatch(r"submission_\d{1,15}", key) and isinstance(entry, dict)):
            continue
        entry = {str(k).lstrip(":"): v for k, v in entry.items()}
        people = []
        for s in entry.get("submitters") or []:
            if isinstance(s, dict):
                s = {str(k).lstrip(":"): v for k, v in s.items()}
                people.append({f: str(s[f]).strip()[:200] for f in ("name", "sid", "email")
                               if isinstance(s.get(f), (str, int)) and not isinstance(s.get(f), bool)})
        out[key] = people[:20]
    return out


class Identities:
    """A roster's ways to name a student: its ``id``, ``sis_id``, ``canvas_id`` and ``email``."""

    def __init__(self, roster: list[str] | None, people: dict | None = None):
        self.ids = list(roster or [])
        known = set(self.ids)
        self.canvas, self.sid, self.email = {}, {i: i for i in self.ids}, {}
        for sid, p in (people or {}).items():
            if sid not in known:
                continue
            if p.get("canvas_id"):
                self.canvas[p["canvas_id"]] = sid
            if p.get("sis_id"):
                self.sid.setdefault(p["sis_id"], sid)
            if p.get("email"):
                self.email[p["email"].lower()] = sid

    def from_canvas(self, user: str) -> str | None:
        return self.canvas.get(user)

    def from_gradescope(self, submitter: dict) -> str | None:
        return self.sid.get(submitter.get("sid", "")) or self.email.get(submitter.get("email", "").lower())
