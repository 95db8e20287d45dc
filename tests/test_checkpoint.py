"""Tests for fleetcalc.physics.checkpoint: the commit protocol of Exercise 28.10 (Ch. 28 §28.6)."""
from fleetcalc.physics.checkpoint import ObjectStore, restore_latest, write_checkpoint


def test_commit_and_fallback():
    s = ObjectStore()
    assert write_checkpoint(s, 100)
    assert write_checkpoint(s, 200, corrupt=17)          # one bad digest, found at restore
    assert not write_checkpoint(s, 300, crash_after=63)   # died after the 63rd shard
    r = restore_latest(s)
    assert r.step == 100 and len(r.shards) == 64
    assert r.rejected == [(300, "not committed"), (200, "shard 17 digest mismatch: whole step rejected")]


def test_no_committed_step():
    s = ObjectStore()
    write_checkpoint(s, 1, crash_after=0)
    assert restore_latest(s).step is None
