"""`make lab` starts with lecture mode off, keeping the user's other slideshow settings."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path):
    env = {"JUPYTERLAB_SETTINGS_DIR": str(tmp_path), "PATH": ""}
    subprocess.run([sys.executable, str(ROOT / "tools" / "deck_off.py")], check=True, env=env)
    return tmp_path / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"


def test_deck_is_switched_off_and_other_settings_stay(tmp_path):
    f = tmp_path / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({"active": True, "showCodeCellPrompt": True}), encoding="utf-8")
    assert json.loads(_run(tmp_path).read_text()) == {"active": False, "showCodeCellPrompt": True}


def test_fresh_settings_are_created(tmp_path):
    assert json.loads(_run(tmp_path).read_text()) == {"active": False}


def test_the_lab_target_runs_it():
    assert "tools/deck_off.py" in (ROOT / "Makefile").read_text(encoding="utf-8").split("lab: $(STAMP)")[1].split("\n\n")[0]
