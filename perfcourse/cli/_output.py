"""Where a command will write a file: checked before any work starts, so a bad path costs nothing."""

from __future__ import annotations

import os
from pathlib import Path

from .._lang import _
from . import CommandError

__all__ = ["output_file"]


def output_file(option, path, *, suffixes=None):
    """The absolute path of ``path`` for ``option`` (``"--json"``), or a usage error in one line.

    Refused: a folder that does not exist, a path that is a folder, a folder that is not writable,
    and (``suffixes``) an ending not in the list.
    """
    target = Path(path).absolute()
    if not target.parent.is_dir():
        raise CommandError(_("cannot write {option} {path}: the folder {folder} does not exist").format(
            option=option, path=path, folder=target.parent), code=2)
    if target.is_dir():
        raise CommandError(_("cannot write {option} {path}: it is a folder").format(option=option, path=path), code=2)
    if suffixes is not None and target.suffix.lower() not in suffixes:
        raise CommandError(_("{option} must end in one of {endings}; got {path!r}").format(
            option=option, endings=", ".join(suffixes), path=str(path)), code=2)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise CommandError(_("cannot write {option} {path}: the folder {folder} is not writable").format(
            option=option, path=path, folder=target.parent), code=2)
    return target
