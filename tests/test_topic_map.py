"""The topic map (chapters/topic_map.md) links only to notebooks that exist, reaches every section
notebook of Chapter 28 and of Vol. 2 Ch. 3, and is part of the book."""
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "chapters" / "topic_map.md"


def links():
    return re.findall(r"\]\(([^)#\s]+\.ipynb)\)", MAP.read_text(encoding="utf-8"))


def test_every_link_resolves():
    targets = links()
    assert len(targets) > 40
    missing = [t for t in targets if not (MAP.parent / t).with_suffix(".md").is_file()]
    assert not missing, missing


def test_map_reaches_chapter_28_and_the_network_chapter():
    linked = {Path(t).as_posix() for t in links()}
    for folder in ("ch28", "v2_ch3"):
        for md in sorted((ROOT / "chapters" / folder).glob("*.md")):
            assert f"{folder}/{md.stem}.ipynb" in linked, f"{folder}/{md.stem} is not on the topic map"


def test_pairs_from_the_texts():
    # Ch. 28 defines oversubscription and bisection in §28.5 (seed 000, line 160) and Vol. 2 sizes
    # them in §3.5: the map's topology row must link both
    row = next(line for line in MAP.read_text(encoding="utf-8").splitlines() if line.startswith("| topology"))
    assert "ch28/28_5_collectives.ipynb" in row and "v2_ch3/3_5_switches_topology.ipynb" in row
    row = next(line for line in MAP.read_text(encoding="utf-8").splitlines() if line.startswith("| collectives"))
    assert "ch28/28_5_collectives.ipynb" in row and "v2_ch3/3_4_transport_alpha_beta.ipynb" in row


def test_map_is_in_the_book():
    book = yaml.safe_load((ROOT / "book.yml").read_text(encoding="utf-8"))
    globs = [c.get("glob", "") for part in book["parts"] for c in part["chapters"]]
    assert any(MAP.with_suffix("").relative_to(ROOT).as_posix() in g for g in globs)
