"""Files written crash-safe (a reader never sees a half-written file) and read safely (a
regular file of bounded size, never a FIFO or a device that blocks or reads without end).

Part of the compiled core (the networks save and load through it) so that the core imports
nothing from the Python layer above it; every file the Python layer opens for reading goes
through :func:`open_regular` too.
"""

import io
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "open_regular", "read_regular", "NotARegularFile", "MAX_FILE_BYTES",
           "MAX_TEXT_BYTES"]

#: The default bound on the bytes of a file read: far more than any network, checkpoint,
#: label shard or match file of bgengine's; a guard against a link to ``/dev/zero`` or a
#: file that is not what it claims, not a policy.
MAX_FILE_BYTES = 1 << 30

#: The bound on a text file read whole (a config, a manifest, a match file).
MAX_TEXT_BYTES = 64 << 20

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotARegularFile(ValueError):
    """A path that is not a regular file, or one larger than its reader's bound."""


def open_regular(path, what="file", max_bytes=MAX_FILE_BYTES):
    """``path`` opened for reading in binary, after checking that it is a regular file (a
    link is followed) of at most ``max_bytes`` bytes; the handle is the caller's to close.

    A FIFO, a device, a socket or a folder raises :class:`NotARegularFile` ("``path``: not
    a regular file (a FIFO)") at once: it is opened without waiting for a writer, and
    checked before a byte is read.  A missing or unreadable file raises the ``OSError``
    of ``open``.  ``what`` names the file in the message of a file too large."""
    path = os.fspath(path)
    _check_regular(path, os.stat(path).st_mode)     # a socket cannot even be opened
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                 | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)                           # what was opened, not what was named
        _check_regular(path, st.st_mode)
        if st.st_size > max_bytes:
            raise NotARegularFile(f"{path}: {st.st_size} bytes, more than a {what} may have "
                                  f"({max_bytes})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return io.open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def _check_regular(path, mode):
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        raise NotARegularFile(f"{path}: not a regular file ({kind})")


def read_regular(path, what="file", max_bytes=MAX_FILE_BYTES):
    """The bytes of ``path``, a regular file of at most ``max_bytes`` bytes (see
    :func:`open_regular`; a file grown past the bound while read is refused too)."""
    with open_regular(path, what, max_bytes) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise NotARegularFile(f"{os.fspath(path)}: more than the {max_bytes} bytes a {what} "
                              f"may have")
    return data


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
