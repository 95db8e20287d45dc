"""The instructor's secret, and what it signs: the variant a notebook was issued, the grader's journal.

    secret = load_secret(create=True)          # `workbook variants` (make variants) creates it once
    meta["signature"] = sign_variant(secret, set_name, student, seed, draws)
    verify_variant(secret, meta)               # the grader: True only for what `variants` issued

The secret is 32 random bytes kept outside the repository: the file named by ``WORKBOOK_SECRET_FILE``,
else ``$XDG_CONFIG_HOME/fleetcalc-workbook/secret`` (``~/.config/...``), mode 0600. A student holds
a signed notebook but not the secret, so editing its student, seed, draws or set breaks the
signature. Grading on another machine needs the same file there.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

ENV = "WORKBOOK_SECRET_FILE"


def secret_path() -> Path:
    """Where the instructor's secret lives (``WORKBOOK_SECRET_FILE`` wins)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "fleetcalc-workbook" / "secret"


def load_secret(create: bool = False) -> bytes | None:
    """The secret's bytes; None when there is none (``create=True`` makes one, never overwriting)."""
    path = secret_path()
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        if not create:
            return None
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:          # made meanwhile by another run: use that one
            return load_secret(create=False)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32) + "\n")
        return load_secret(create=False)
    except (OSError, UnicodeDecodeError):
        return None
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return None
    return raw if len(raw) >= 16 else None


def mac(secret: bytes, purpose: str, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under a key of its own per ``purpose`` (hex)."""
    key = hmac.new(secret, b"workbook/" + purpose.encode(), hashlib.sha256).digest()
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _variant_bytes(set_name: str, student: str, seed: int, draws: dict) -> bytes:
    doc = {"v": 1, "set": set_name, "student": student, "seed": seed,
           "draws": {str(k): int(v) for k, v in sorted(draws.items()) if v}}
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def sign_variant(secret: bytes, set_name: str, student: str, seed: int, draws: dict) -> str:
    """The signature a variant notebook carries in ``metadata.fleetcalc.signature``."""
    return mac(secret, "variant", _variant_bytes(set_name, student, seed, draws))


def verify_variant(secret: bytes | None, meta: dict) -> bool:
    """Whether ``meta`` (validated fields: exercise_set, student, seed, draws, signature) is what was issued."""
    need = ("exercise_set", "student", "seed", "signature")
    if secret is None or any(k not in meta for k in need):
        return False
    want = sign_variant(secret, meta["exercise_set"], meta["student"], meta["seed"], meta.get("draws", {}))
    return hmac.compare_digest(want, meta["signature"])
