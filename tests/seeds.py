"""Where the source texts are: ``$WORKBOOK_SEEDS``, else ``../shared/seeds`` beside the repository.

The texts are not part of the repository; tests that need them fall back to the committed
extracts under ``tests/data`` (a clean clone in CI has only those).
"""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def seeds_dir() -> Path:
    """The folder holding the source texts (it may not exist)."""
    env = os.environ.get("WORKBOOK_SEEDS")
    return Path(env) if env else REPO.parent / "shared" / "seeds"
