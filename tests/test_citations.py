"""Each source line a check cites (the ``line N`` in a ``book_says`` ``where=``) holds the printed
value, read from the source texts (env var WORKBOOK_SEEDS, else ../shared/seeds beside the
repository) or, where they are absent, from the committed extract tests/data/cited_source_lines.txt
(regenerate it with: workbook reference-pages cited-lines --seeds <seed folder>)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from workbook.site import reference_pages as rp  # noqa: E402


def _seed_dir() -> Path | None:
    for d in (os.environ.get("WORKBOOK_SEEDS"), ROOT.parent / "shared" / "seeds"):
        if d and all((Path(d) / f).is_file() for f in rp.SEED_FILES.values()):
            return Path(d)
    return None


SEEDS = _seed_dir()
EXTRACT = rp.load_cited_lines()


def source_line(key: str, n: int) -> str:
    if SEEDS is not None:
        lines = (SEEDS / rp.SEED_FILES[key]).read_text(encoding="utf-8").splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else ""
    assert f"{key}:{n}" in EXTRACT, (f"line {n} of source {key} is cited but not in the extract: "
                                     "workbook reference-pages cited-lines --seeds <seed folder>")
    return EXTRACT[f"{key}:{n}"]


CHECKS = rp.cited_checks(rp.notebooks_with_checks())


def test_there_are_cited_checks():
    assert len(CHECKS) > 300  # every notebook cites its lines; a parser that finds none is broken


@pytest.mark.parametrize("nb, entry, key, lines", CHECKS,
                         ids=[f"{p.stem}:{e.where[:40]}:{e.printed}" for p, e, _, _ in CHECKS])
def test_cited_line_holds_the_printed_value(nb, entry, key, lines):
    text = " ".join(source_line(key, n) for n in lines)
    assert rp.line_holds(entry.printed, text), (
        f"{nb.relative_to(ROOT)}: '{entry.where}' cites line(s) {lines}, which do not state "
        f"{entry.printed}:\n{text[:400]}")


def test_source_values_reads_the_books_notations():
    # forms copied from the sources: Vol. 2 lines 1490, 1850, 1738, 578, 2945, 1688, 2805, 2180
    assert 1.2e6 in rp.source_values("约为 $0.8–1.2 百万（每加速器 80 GB）")
    assert 3.5e11 in rp.source_values("约 3.5 × 10¹¹ FLOP")
    assert 4.0 in rp.source_values("TDP 已翻了两番多，年均增长约 18%")
    assert 7.0 in rp.source_values("大约七个数量级") and 10.0 in rp.source_values("降低一个数量级")
    assert pytest.approx(99.999) in rp.source_values("“五个九”的可靠性")
    assert 0.125 in rp.source_values("约 1/8 的相对精度")
    assert pytest.approx(1.421e8) in rp.source_values("约为 1.421 亿美元")
    assert 20.0 in rp.source_values("激活值：~20 GB（带检查点）")
    assert not rp.line_holds("16 GB", "激活值：~20 GB（带检查点）")
    assert rp.line_holds("2.2 TB", "| 总计 | | | 2.2–2.5 TB |") and rp.line_holds("8,192", "8, 192 × 1979")


def test_extract_is_current_when_the_sources_are_here(tmp_path):
    if SEEDS is None:  # without the sources, the extract must at least cover every cited line
        missing = sorted({f"{k}:{n}" for _, _, k, ns in CHECKS for n in ns} - set(EXTRACT))
        assert not missing, f"cited lines missing from the extract: {missing[:10]}"
        return
    out = tmp_path / "cited.txt"
    rp.cited_lines(SEEDS, out)
    assert out.read_text(encoding="utf-8") == rp.cited_lines_path().read_text(encoding="utf-8"), (
        "tests/data/cited_source_lines.txt is stale: workbook reference-pages cited-lines --seeds <seed folder>")
