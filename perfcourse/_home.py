"""The learner's own folder: where their predictions and this machine's ceilings are kept.

``$PERFCOURSE_HOME`` when it is set, else the user's data folder (``platformdirs``, or XDG's
default on a Python without it). Never inside the course's repository.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV_HOME", "home"]

ENV_HOME = "PERFCOURSE_HOME"   # folder of the learner's own records; default: the user's data folder


def home():
    """The folder that holds the learner's records: ``$PERFCOURSE_HOME``, else the user's data folder."""
    chosen = os.environ.get(ENV_HOME, "").strip()
    if chosen:
        folder = Path(chosen).expanduser()
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"{ENV_HOME} must name a folder (where your records are kept); {chosen!r} is a file")
        return folder
    try:
        import platformdirs
    except ImportError:          # a Python with only the scientific stack (a GPU machine's image): XDG's default
        return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "perfcourse"
    return platformdirs.user_data_path("perfcourse", appauthor=False)
