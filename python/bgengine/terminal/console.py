"""The terminal's two streams: lines read and text written, so that no input and no
closed stream ever crashes the session."""

from __future__ import annotations

from typing import TextIO

from bgengine.terminal.commands import quote

__all__ = ["Console", "Quit"]


class Quit(Exception):
    """Leave the session: the player said so, the input ended or the output closed."""


class Console:
    """Lines from ``input`` (``readline()``), text to ``output``; with ``echo`` every
    line read is written back (useful when the input is a file).  ``lines_read``
    counts the lines read."""

    def __init__(self, input: TextIO, output: TextIO, echo: bool = False) -> None:
        self.input, self.output, self.echo = input, output, echo
        self.lines_read = 0

    def say(self, text: str = "") -> None:
        """Write a line (text that the output's encoding cannot hold is escaped)."""
        self.write(text + "\n")

    def write(self, text: str) -> None:
        """Write ``text``; :class:`Quit` when the output is gone."""
        try:
            try:
                self.output.write(text)
            except UnicodeEncodeError:
                enc = getattr(self.output, "encoding", None) or "ascii"
                self.output.write(text.encode(enc, "backslashreplace").decode(enc, "replace"))
            self.output.flush()
        except (BrokenPipeError, ValueError, OSError):
            # the output is gone (closed pipe, closed file): nothing more to say
            raise Quit("output closed") from None

    def readline(self, prompt: str) -> str:
        """The next input line after ``prompt``, without its line end; :class:`Quit` at
        the end of input (undecodable lines are skipped, 50 in a row end it too)."""
        self.write(prompt)
        bad = 0
        while True:
            try:
                line = self.input.readline()
                break
            except UnicodeDecodeError as exc:
                bad += 1
                self.say(f"\nThat line could not be decoded ({exc.reason}); ignored.")
                if bad >= 50:
                    raise Quit("undecodable input") from None
                self.write(prompt)
            except (OSError, ValueError) as exc:     # closed or broken input
                self.say(f"\nInput closed ({exc}).")
                raise Quit("input error") from None
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        if not line:
            self.say("\nEnd of input: leaving the game.")
            raise Quit("end of input")
        self.lines_read += 1
        line = line.rstrip("\r\n")
        if self.echo:
            self.say(line if line.isprintable() and len(line) <= 200 else quote(line, 200))
        return line
