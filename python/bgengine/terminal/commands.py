"""The words a player types at the terminal: the commands, their help text, and reading
a line as a command (with a suggestion when a word is nearly a command)."""

from __future__ import annotations

import difflib
from typing import NamedTuple

__all__ = ["HELP", "MAX_INPUT", "LEVEL_NAMES", "Command", "CommandError", "Reply", "read_command",
           "read_preroll", "read_take", "read_resignation_answer", "read_move_word", "suggest_command", "not_understood", "quote"]

#: Longest input line we look at; longer lines are refused.
MAX_INPUT = 400

HELP = """\
Commands:
  <move>        your play in standard notation, e.g. 24/18 13/11, 8/5(2), bar/22*, 6/off,
                or its number in the 'moves' list (the numbers 'bgengine moves' shows)
  roll          roll the dice (pressing Enter also rolls)
  double        offer the cube to the engine (before you roll)
  take, drop    answer the engine's double (also: accept / pass, yes / no)
  hint          the engine's best plays with equities; before rolling or when
                doubled: the cube action with its equities (hint N: the best N plays)
  moves         list all legal plays of your roll, numbered
  undo          take back your last move (the dice stay the same)
  resign [single|gammon|backgammon]
                offer to resign (default single); the engine accepts or declines
  accept, reject  answer the engine's offer to resign
  show          draw the board again        score   show the score
  help          this text                   quit    leave (end of input also leaves)"""

#: The levels of a game won or resigned (1 single, 2 gammon, 3 backgammon) as said to the player.
LEVEL_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
_RESIGN_WORDS = {"": 1, "1": 1, "s": 1, "single": 1, "n": 1, "normal": 1, "simple": 1,
                 "2": 2, "g": 2, "gammon": 2, "3": 3, "b": 3, "bg": 3, "backgammon": 3}

#: The commands valid at every prompt, by name, with every word that says them.
_COMMAND_WORDS = {
    "help": ("help", "?", "h"),
    "quit": ("quit", "exit", "q", "bye"),
    "show": ("show", "board", "redraw", "b"),
    "score": ("score",),
    "hint": ("hint", "advice"),
    "undo": ("undo", "takeback", "u"),
    "resign": ("resign", "giveup"),
    "moves": ("moves", "list", "legal"),
}
_COMMANDS = {word: name for name, words in _COMMAND_WORDS.items() for word in words}

#: Words of the prompts that ask for something in particular (lower case).
_ROLL_WORDS = ("roll", "r")
_DOUBLE_WORDS = ("double", "d", "dbl")
_ANSWER_WORDS = ("take", "drop", "accept", "pass")            # an answer when nothing was asked
_TAKE_WORDS = ("take", "t", "accept", "yes", "y")
_DROP_WORDS = ("drop", "pass", "p", "reject", "no", "n", "decline")
_NOT_AN_ANSWER_WORDS = ("roll", "double", "r", "beaver", "redouble")   # said when doubled

#: What a mistyped word may have meant: the commands' and the prompts' whole words.
_VOCABULARY = sorted({w for words in _COMMAND_WORDS.values() for w in words if len(w) > 2}
                     | {"roll", "double", "take", "drop", "accept", "pass"})
#: Letters that also spell moves (bar, off): a word of only these is read as a move.
_MOVE_LETTERS = set("barofBAROF")


class Command(NamedTuple):
    """A command valid at every prompt: ``name`` (a key of the command table) and its
    argument: the number of plays for ``hint`` (default 5), the level (1-3) for ``resign``."""

    name: str
    arg: int | None = None


class Reply(NamedTuple):
    """A line read at a prompt: the ``answer`` it gives (``None``: ask again) and a
    ``message`` to say first (``None``: nothing)."""

    answer: str | None = None
    message: str | None = None


class CommandError(ValueError):
    """A command word with an argument that cannot be read; the message says why."""


def quote(text: str, limit: int = 60) -> str:
    """``text`` for a message: shortened and with unprintable characters escaped."""
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


def read_command(text: str) -> Command | None:
    """``text`` (a cleaned line) as a command valid at every prompt, ``None`` when it is
    not one; :class:`CommandError` for a command with an unreadable argument."""
    words = text.split()
    if not words:
        return None
    name = _COMMANDS.get(words[0].lower())
    rest = words[1:]
    if name == "hint":
        n = 5
        if rest:
            try:
                n = max(1, min(int(rest[0]), 100))
            except ValueError:
                raise CommandError("hint takes a number of plays to show, e.g. 'hint 10'; "
                                   f"got {quote(rest[0])}") from None
        return Command(name, n)
    if name == "resign":
        word = " ".join(rest).lower()
        level = _RESIGN_WORDS.get(word)
        if level is None:
            raise CommandError("resign what? Say 'resign', 'resign gammon' or 'resign backgammon' "
                               f"(not {quote(word)}).")
        return Command(name, level)
    return None if name is None else Command(name)


def suggest_command(text: str) -> str | None:
    """The command a one-word line not understood probably meant (``hnit``: ``hint``),
    by :mod:`difflib` similarity; ``None`` when nothing is close or the word could be
    part of a move (``bar``, ``off``)."""
    words = text.split()
    if len(words) != 1 or not words[0].isalpha() or set(words[0]) <= _MOVE_LETTERS:
        return None
    close = difflib.get_close_matches(words[0].lower(), _VOCABULARY, n=1, cutoff=0.6)
    return close[0] if close else None


def not_understood(text: str, otherwise: str) -> str:
    """What to say to a line understood at no prompt: the command it probably meant
    (``hnit``: ``hint``), else ``otherwise``."""
    meant = suggest_command(text)
    return otherwise if meant is None else f"Unknown command {quote(text)}: did you mean '{meant}'?"


def read_preroll(text: str, refusal: str | None) -> Reply:
    """``text`` before the player rolls: answer ``roll`` or ``double`` (``refusal``: why
    the player may not double, if so)."""
    w = text.lower()
    if w in ("",) + _ROLL_WORDS:
        return Reply("roll")
    if w in _DOUBLE_WORDS:
        return Reply(None, f"You cannot double: {refusal}.") if refusal else Reply("double")
    if w in _ANSWER_WORDS:
        return Reply(None, "There is no double to answer.")
    if any(ch.isdigit() for ch in w) or "/" in w or w.startswith("bar"):
        return Reply(None, "Roll first: type 'roll' (or press Enter), or 'double'.")
    return Reply(None, not_understood(text, f"Unknown command {quote(text)}: type 'roll', 'double' or 'help'."))


def read_take(text: str) -> Reply:
    """``text`` when the engine has doubled: answer ``take`` or ``drop``."""
    w = text.lower()
    if w in _TAKE_WORDS:
        return Reply("take")
    if w in _DROP_WORDS:
        return Reply("drop")
    if w in _NOT_AN_ANSWER_WORDS:
        return Reply(None, "The engine has doubled: answer 'take' or 'drop' first.")
    return Reply(None, not_understood(text, f"Answer the double with 'take' or 'drop' (not {quote(text)})."))


def read_resignation_answer(text: str) -> Reply:
    """``text`` when the engine offers to resign: answer ``accept`` or ``reject``."""
    w = text.lower()
    if w in ("accept", "agree", "a", "yes", "y"):
        return Reply("accept")
    if w in ("reject", "decline", "r", "no", "n"):
        return Reply("reject")
    return Reply(None, not_understood(text, f"Answer the engine's resignation with 'accept' or "
                                            f"'reject' (not {quote(text)})."))


def read_move_word(text: str, d1: int, d2: int, refusal: str | None, example: str) -> str | None:
    """What to say when ``text``, at the move prompt of ``d1``-``d2``, is a word of another
    prompt or empty (``refusal``: why the player may not double, if so; ``example``: a
    legal play); ``None`` when it is to be read as a move."""
    w = text.lower()
    if w in _ROLL_WORDS:
        return f"You have already rolled {d1}-{d2}: type your move."
    if w in _DOUBLE_WORDS:
        return f"You cannot double: {refusal}." if refusal else "You can only double before you roll."
    if w in _ANSWER_WORDS:
        return "There is no double to answer: type your move."
    if not text:
        return f"Type your move for {d1}-{d2} (e.g. {example}), 'moves' for the list, or 'hint'."
    return None
