"""Crash-safe file writing: a reader never sees a half-written file.

Part of the compiled core (the networks save through it) so that the core imports
nothing from the Python layer above it; the Python layer uses it too.
"""

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path, write) -> None:
    """Call ``write(f)`` on a temporary file beside ``path``, sync it, then
    rename it over ``path`` (atomic on POSIX and Windows).  On any error the
    temporary file is removed and ``path`` is left as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        os.chmod(tmp, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read_umask():
    # os.umask can only be read by setting it: do that once, at import, before any threads
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
