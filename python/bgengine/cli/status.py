"""The exit statuses of every ``bgengine`` command and the one form of an error about a file
(``bgengine: error: FILE: what is wrong``), shared by the commands."""

from __future__ import annotations

import os
import re

__all__ = ["EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE",
           "EXIT_CODES", "os_error_text", "file_error_text", "one_line"]

#: The exit statuses, the same for every command.
EXIT_OK = 0
#: The work ran and failed: a match file that fails ``matchfile check``, an internal error.
EXIT_FAILURE = 1
#: Usage or bad input: an unknown option, a value out of range, a bad ID, a file that is
#: missing, unreadable or malformed (always one line that starts ``bgengine: error:``).
EXIT_USAGE = 2
#: Interrupted (Ctrl-C, or SIGTERM where a command stops on it): what was finished is
#: saved and reported first.
EXIT_INTERRUPTED = 130

#: Exit status when the reader of standard output went away (``bgengine moves ID 31 | head``):
#: what the shell reports for a program ended by SIGPIPE, so ``set -o pipefail`` sees
#: ``bgengine`` as it sees ``yes | head``.
EXIT_BROKEN_PIPE = 128 + 13

#: The table in ``bgengine --help``.
EXIT_CODES = (
    (EXIT_OK, "success"),
    (EXIT_FAILURE, "failure: the work ran and failed (a file that fails 'matchfile check', "
                   "an internal error)"),
    (EXIT_USAGE, "usage or bad input: an unknown option, a value out of range, a bad ID or "
                 "state, a missing, unreadable or malformed file; always one line "
                 "'bgengine: error: ...' on standard error"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C): long jobs save and print what they finished "
                       "first; the servers (serve, web, ubgi) end with 0, stopping is their "
                       "normal end"),
    (EXIT_BROKEN_PIPE, "standard output closed by its reader (bgengine ... | head)"),
)


#: The temporary file of an atomic write (``bgengine.core.fileio.atomic_write``): ``NAME.XXXXXXXX.tmp``
#: next to the file ``NAME`` being written.
_TEMPORARY = re.compile(r"(.+)\.[A-Za-z0-9_]{8}\.tmp")


def os_error_text(exc: OSError) -> str:
    """``exc`` in one line: ``FILE: what went wrong`` when it names a file (the file being
    written, not the temporary file of its atomic write)."""
    name = exc.filename2 if getattr(exc, "filename2", None) is not None else exc.filename
    if name is not None and exc.strerror:
        text = os.fspath(name) if isinstance(name, (str, os.PathLike)) else str(name)
        temporary = _TEMPORARY.fullmatch(str(text))
        return f"{temporary.group(1) if temporary else text}: {exc.strerror}"
    return str(exc) or type(exc).__name__


def file_error_text(exc: BaseException) -> str:
    """The text after ``bgengine: error:`` of a file that is missing, unreadable (an
    ``OSError``) or malformed (a ``ValueError`` whose message names the file): one line,
    ``FILE: what is wrong``."""
    return one_line(os_error_text(exc) if isinstance(exc, OSError) else str(exc))


def one_line(text: str) -> str:
    """``text`` on one line (a message quoting several lines of input keeps to one)."""
    return " ".join(text.split()) if "\n" in text else text
