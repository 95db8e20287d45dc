"""Start `make lab` with lecture mode off: JupyterLab's slideshow extension remembers "deck on" in
the user's settings, so a lecture given yesterday would open today's notebooks as slides.

Sets ``active`` to false in the extension's user settings (creating them if needed) and leaves the
other settings as they are; a settings file it cannot read is left untouched, with a message.
"""
import json
import os
import sys
from pathlib import Path


def settings_file() -> Path:
    base = os.environ.get("JUPYTERLAB_SETTINGS_DIR") or (
        Path(os.environ.get("JUPYTER_CONFIG_DIR", Path.home() / ".jupyter")) / "lab" / "user-settings")
    return Path(base) / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"


def main() -> int:
    path = settings_file()
    settings = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError:
            print(f"lecture mode: left {path} as it is (not plain JSON); switch the deck off in the lab if it is on")
            return 0
    if settings.get("active") is False:
        return 0
    settings["active"] = False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
