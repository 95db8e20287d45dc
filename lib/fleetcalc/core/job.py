"""The course's running job, defined once: ``our_job.P``, ``our_job.beta_mem``, ``our_job.table()``.

Every section closes by applying its idea to the same training run (and its serving), and the
capstone designs a cluster for it. The job lives in ``core/data/running_job.toml``: each field is
either our own choice (value, unit, the reason) or a pointer into the hardware catalog
(``catalog = "h100.hbm_bandwidth"``), so a book figure keeps its one source. Field names are the
calculators' parameter names, so ``scaling_laws.training_flops(our_job.P, our_job.D)`` reads like
the equation.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from fleetcalc.core.cite import for_reader
from fleetcalc.core.catalog import CatalogError, entry
from fleetcalc.core.units import Q_, human_unit

__all__ = ["Field", "RunningJob", "our_job", "load_job", "JOB_FILE"]

JOB_FILE = Path(__file__).parent / "data" / "running_job.toml"


@dataclass(frozen=True)
class Field:
    """One input of the running job: its value (a Quantity, or a catalog product key), label, source."""
    name: str
    value: object
    label: str
    source: str
    catalog: str = ""

    @property
    def kind(self) -> str:
        """'book' for a catalog figure, 'ours' for our own choice."""
        return "book" if self.catalog else "ours"


class RunningJob:
    """The running job's inputs as attributes (Quantities; ``device`` is a catalog product key)."""

    def __init__(self, name: str, summary: str, fields: dict[str, Field]):
        self.name = name
        self.summary = summary
        self.fields = fields

    def __getattr__(self, key):
        fields = self.__dict__.get("fields", {})
        if key in fields:
            return fields[key].value
        raise AttributeError(f"the running job has no input {key!r}; it has: {', '.join(fields)}")

    def __dir__(self):
        return [*super().__dir__(), *self.fields]

    def source(self, key: str) -> str:
        """Where an input comes from (the catalog's source for a book figure)."""
        return self.fields[key].source

    def spec(self, key: str):
        """A figure of the job's device from the catalog: ``our_job.spec("l2_capacity")``."""
        return entry(f"{self.device}.{key}").quantity

    def rows(self):
        """(name, label, value text, kind, source) for every input, in the file's order."""
        for f in self.fields.values():
            text = f.value if isinstance(f.value, str) else _text(f.value)
            yield f.name, f.label, text, f.kind, f.source

    def table(self):
        """The job's assumptions on one page (renders in a notebook; Markdown text)."""
        lines = [f"**{self.name}**: {self.summary}", "",
                 "| input | symbol | value | from | source |", "|---|---|---|---|---|"]
        for name, label, text, kind, source in self.rows():
            lines.append(f"| {label} | `{name}` | {text} | {'the book' if kind == 'book' else 'our choice'} | {for_reader(source)} |")
        return _Markdown("\n".join(lines))

    def __repr__(self):
        return f"<RunningJob {self.name!r}: {len(self.fields)} inputs>"


_WORDS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def _text(q) -> str:
    """An input as a reader writes it: '70 billion param', '4,194,304 token', '1.5 µs'."""
    unit = human_unit(q)
    q = q.to(unit) if unit else q
    mag, u = float(q.magnitude), f"{q.units:~P}"
    for scale, word in _WORDS:
        if abs(mag) >= scale and (mag / scale) == round(mag / scale, 3) and mag % 1e3 == 0:
            return f"{mag / scale:g} {word} {u}".strip()
    if mag == int(mag):
        return f"{int(mag):,} {u}".strip()
    return f"{mag:.4g} {u}".strip()


class _Markdown(str):
    """Text that a notebook renders as Markdown."""

    def _repr_markdown_(self):
        return str(self)


def _field(name: str, t: dict, fname: str) -> Field:
    label = t.get("label", name)
    if "catalog" in t:
        e = entry(t["catalog"])
        return Field(name, e.quantity, label, e.source, catalog=t["catalog"])
    if "product" in t:
        entry(f"{t['product']}.tdp")  # the product must exist in the catalog
        return Field(name, t["product"], label, t.get("source", ""), catalog="")
    missing = [k for k in ("value", "unit", "source") if k not in t]
    if missing:
        raise CatalogError(f"{fname}: job.{name} needs {', '.join(missing)} (or catalog = \"<path>\")")
    return Field(name, Q_(t["value"], t["unit"]), label, t["source"])


def load_job(path: Path | str = JOB_FILE) -> RunningJob:
    """Read the running job from its TOML file; a malformed field fails naming itself."""
    path = Path(path)
    data = tomllib.loads(path.read_text(encoding="utf-8"))["job"]
    name, summary = data.pop("name"), data.pop("summary")
    fields = {k: _field(k, v, path.name) for k, v in data.items()}
    return RunningJob(name, summary, fields)


class _Lazy:
    """Loads the job on first use, so importing the facade costs nothing."""
    _job = None

    def __getattr__(self, key):
        if _Lazy._job is None:
            _Lazy._job = load_job()
        return getattr(_Lazy._job, key)

    def __dir__(self):
        return dir(load_job()) if _Lazy._job is None else dir(_Lazy._job)

    def __repr__(self):
        return repr(load_job() if _Lazy._job is None else _Lazy._job)


our_job = _Lazy()
