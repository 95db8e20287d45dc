"""Fig. 28.5 (checkpoint commit path) shows what the library's commit protocol leaves in the store."""

import pytest

from fleetcalc.ui.diagrams.checkpoint import commit_path, store_state
from fleetcalc.ui.diagrams.draw import png
from fleetcalc.core.validate import InputError


def _texts(fig):
    return [t.get_text() for t in fig.axes[0].texts]


def test_crashed_writer_leaves_reclaimable_shards_and_restore_uses_the_older_step():
    # Exercise 28.10's scenario by hand: step 1000 complete, the writer of step 2000 dies after
    # 5 of 8 shards -> 5 staging objects, no manifest, no marker; restore must pick step 1000.
    st = store_state(8, crash_after=5)
    assert st["steps"][2000] == {"shards": 5, "manifest": False, "committed": False}
    assert st["steps"][1000] == {"shards": 8, "manifest": True, "committed": True}
    assert st["restored"] == 1000
    texts = _texts(commit_path(8, crash_after=5))
    assert "writer died after 5 of 8 shards" in texts
    assert "restore → step 1000" in texts
    assert "reclaimable,\nnot restorable" in texts and "restorable" in texts
    assert "no manifest" in texts and "no marker" in texts


def test_committed_but_corrupt_step_is_rejected_whole():
    st = store_state(8, crash_after=None, corrupt=3)
    assert st["steps"][2000]["committed"] and st["restored"] == 1000
    assert "rejected at restore\n(digest mismatch)" in _texts(commit_path(8, crash_after=None, corrupt=3))


def test_clean_write_restores_the_newest_step():
    assert "restore → step 2000" in _texts(commit_path(4, crash_after=None))


@pytest.mark.parametrize("kw", [{"n_shards": 0}, {"n_shards": 17}, {"crash_after": 9}, {"old_step": 5, "new_step": 5}])
def test_bad_input_names_the_parameter(kw):
    with pytest.raises(InputError, match=next(iter(kw))):
        store_state(**{"n_shards": 8, **kw})


def test_fast_and_legible():
    commit_path()
    fig = commit_path()
    png(fig)
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 8
