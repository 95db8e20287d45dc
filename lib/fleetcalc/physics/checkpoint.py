"""A sharded checkpoint commit protocol (Ch. 28 §28.6 and Exercise 28.10), simulated in memory.

Object stores make single-key writes atomic but give no transaction across keys (the book's
S3 example), so a 64-shard checkpoint needs an application-level commit:

1. every shard is written under a *staging* prefix of its step;
2. a manifest lists run id, step, world layout, and for each shard its key, size and SHA-256
   digest, plus the data cursor and RNG-state version;
3. only after every shard is written and verified is one *commit marker* written (a single
   atomic key write) -- that marker, not the shard writes, makes the step restorable.

Restore takes the newest committed step whose shards all verify against the manifest. A step
with one bad digest is rejected *as a whole* (shards from different steps are never mixed) and
the previous committed step is used, with the lost range reported.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from fleetcalc.core.validate import InputError, count

__all__ = ["ObjectStore", "write_checkpoint", "restore_latest", "RestoreResult"]


@dataclass
class ObjectStore:
    """A dict of key -> bytes with atomic single-key puts (no multi-key transactions)."""
    objects: dict = field(default_factory=dict)
    puts: int = 0

    def put(self, key: str, data: bytes):
        self.objects[key] = bytes(data)
        self.puts += 1

    def get(self, key: str) -> bytes:
        return self.objects[key]

    def keys(self, prefix=""):
        return sorted(k for k in self.objects if k.startswith(prefix))


def _shard_payload(step: int, rank: int, size: int = 64) -> bytes:
    """Deterministic stand-in bytes for rank ``rank``'s state at ``step``."""
    seed = hashlib.sha256(f"{step}:{rank}".encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_checkpoint(store: ObjectStore, step, n_shards=64, *, run="run0", crash_after=None,
                     corrupt=None) -> bool:
    """Write step ``step`` with ``n_shards`` shards. Returns True when the commit marker is written.

    ``crash_after=k``: the writer dies after k shards (e.g. 63 of 64): no manifest, no marker.
    ``corrupt=r``: shard r's stored bytes are altered after its digest went into the manifest
    (silent corruption found only at restore).
    """
    step = int(count("step", step, ge=0))
    n = int(count("n_shards", n_shards))
    base = f"{run}/step-{step:08d}"
    manifest = {"run": run, "step": step, "world_size": n,
                "data_cursor": step * 1000,   # not a unit factor: a stand-in cursor, 1000 samples per step
                "rng_version": step, "shards": []}
    for r in range(n):
        if crash_after is not None and r >= crash_after:
            return False                       # process died: staging shards stay uncommitted
        data = _shard_payload(step, r)
        key = f"{base}/staging/shard-{r:05d}"
        store.put(key, data)
        if _digest(store.get(key)) != _digest(data):      # verify the write
            return False
        manifest["shards"].append({"rank": r, "key": key, "bytes": len(data), "sha256": _digest(data)})
    store.put(f"{base}/manifest.json", json.dumps(manifest, sort_keys=True).encode())
    if corrupt is not None:
        if not 0 <= int(corrupt) < n:
            raise InputError(f"corrupt must be a rank in 0..{n - 1}; got {corrupt}")
        k = manifest["shards"][int(corrupt)]["key"]
        store.objects[k] = b"\x00" + store.objects[k][1:]
    store.put(f"{base}/COMMITTED", _digest(store.get(f"{base}/manifest.json")).encode())
    return True


@dataclass
class RestoreResult:
    step: int | None
    rejected: list            # (step, reason) for newer steps that could not be used
    shards: list              # the verified shard payloads of the chosen step


def restore_latest(store: ObjectStore, run="run0") -> RestoreResult:
    """Newest committed step whose manifest and every shard digest verify; never mixes steps."""
    steps = sorted({int(k.split("/")[1][5:]) for k in store.keys(f"{run}/step-")}, reverse=True)
    rejected = []
    for step in steps:
        base = f"{run}/step-{step:08d}"
        if f"{base}/COMMITTED" not in store.objects:
            rejected.append((step, "not committed"))
            continue
        raw = store.get(f"{base}/manifest.json")
        if store.get(f"{base}/COMMITTED").decode() != _digest(raw):
            rejected.append((step, "manifest does not match the commit marker"))
            continue
        man = json.loads(raw)
        shards, bad = [], None
        for s in man["shards"]:
            data = store.objects.get(s["key"])
            if data is None or len(data) != s["bytes"] or _digest(data) != s["sha256"]:
                bad = s["rank"]
                break
            shards.append(data)
        if bad is not None or len(shards) != man["world_size"]:
            rejected.append((step, f"shard {bad} digest mismatch: whole step rejected"))
            continue
        return RestoreResult(step=step, rejected=rejected, shards=shards)
    return RestoreResult(step=None, rejected=rejected, shards=[])
