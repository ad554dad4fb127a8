"""Finding the gnubg binary, running Python scripts inside it, and the errors of running it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["ENV_BINARY", "FALLBACK_LOCATIONS", "GnubgError", "GnubgNotFound", "find_gnubg",
           "private_invocation", "run_gnubg_scripts"]

#: Environment variable naming the gnubg binary (a path, or a name on PATH).
ENV_BINARY = "BGENGINE_GNUBG"
#: Where Debian and source installs put gnubg when it is not on PATH.
FALLBACK_LOCATIONS = ("/usr/games/gnubg", "/usr/local/games/gnubg")

_NOT_FOUND = ("gnubg not found: install GNU Backgammon (apt-get install gnubg) or put it on "
              f"PATH (or name the binary with ${ENV_BINARY} or --gnubg)")


class GnubgError(RuntimeError):
    """gnubg could not be started or stopped answering for good."""


class GnubgNotFound(GnubgError):
    """The gnubg binary is not installed or not where it was said to be."""


def find_gnubg(binary: str | None = None) -> str:
    """The path of the gnubg binary.

    ``binary`` (a path, or a name looked up on PATH) if given, else
    ``$BGENGINE_GNUBG``, else ``gnubg`` on PATH, else ``/usr/games/gnubg``.
    Raises :class:`GnubgNotFound` with a one-line message saying how to
    install it.
    """
    wanted = binary if binary is not None else os.environ.get(ENV_BINARY) or None
    if wanted is not None:
        found = shutil.which(wanted)
        if found is None:
            raise GnubgNotFound(f"{_NOT_FOUND}; {wanted!r} is not an executable program")
        return found
    found = shutil.which("gnubg")
    if found is not None:
        return found
    for path in FALLBACK_LOCATIONS:
        if os.access(path, os.X_OK):
            return path
    raise GnubgNotFound(_NOT_FOUND)


def private_invocation(prefs: Path) -> tuple[list[str], dict[str, str]]:
    """gnubg's options (text mode, quiet, no preference files read, ``prefs`` as its settings
    folder) and environment (``HOME`` = ``prefs``) for a process kept apart from the user's
    ``~/.gnubg``: gnubg creates that folder at its first start, and processes started at
    once on a machine without it race to create it ("File exists"); nor should a user's
    settings change what a process computes."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHOME"}
    env["HOME"] = str(prefs)
    return ["-t", "-q", "-r", "-s", str(prefs)], env


def run_gnubg_scripts(script: str | Path, environments: Sequence[Mapping[str, str]],
                      niceness: int = 10, binary: str | None = None) -> None:
    """Run the Python ``script`` inside gnubg (``gnubg -t -q -p``), once per entry of
    ``environments`` (extra environment variables: the script's inputs and outputs), all at
    once at ``niceness``, each apart from the user's settings (:func:`private_invocation`),
    and wait for them.  Raises :class:`GnubgError` with the end of
    gnubg's error output if any of them fails."""
    path = find_gnubg(binary)
    with tempfile.TemporaryDirectory(prefix="bgengine-gnubg-") as tmp:
        procs: list[subprocess.Popen] = []
        outcomes = []
        try:
            for j, extra in enumerate(environments):
                prefs = Path(tmp) / f"prefs{j}"
                prefs.mkdir()
                options, env = private_invocation(prefs)
                procs.append(subprocess.Popen(
                    ["nice", "-n", str(niceness), path, *options, "-p", str(script)],
                    env={**env, **extra}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            for p in procs:
                _, err = p.communicate()
                outcomes.append((p.returncode, err))
        finally:                        # an error or Ctrl-C: no gnubg left running
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    failures = [f"exit {code}: {err.decode(errors='replace')[-2000:]}"
                for code, err in outcomes if code]
    if failures:
        raise GnubgError(f"gnubg running {Path(script).name} failed: {failures[0]}")
