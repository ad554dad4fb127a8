"""A session of play saved as a ``.mat`` match file as it goes, and read back to continue it.

:class:`SessionLog` holds the :class:`~bgengine.matchfiles.record.MatchRecord` of a match or money
session in play and writes it after every action, laid out by :mod:`bgengine.matchfiles.mat`
(:func:`~bgengine.matchfiles.mat.write_mat`'s parts, the finished games' kept), with
:func:`bgengine.core.fileio.atomic_write` (a temporary file renamed over the old one: a crash
or Ctrl-C leaves the last complete save, never half a file).  The file is a plain
``.mat`` file: ``bgengine matchfile check`` reads it and gnubg imports it (``import mat``),
finished or not.  :func:`load_session` reads one back, checked, with the point it stopped at
(:class:`SavedSession`), so that a program can continue the match exactly there.

What a ``.mat`` file cannot say is kept in tag lines ``; [bgengine KEY "VALUE"]`` (other
programs skip them as comments):

* ``bgengine seed``: the session's dice seed (said to the player, to replay it);
* ``bgengine dice``: the dice generator's state ``STATE INC``
  (:meth:`bgengine.core.dice.Dice.getstate`): the rolls after a continue are the rolls the
  session would have had;
* ``bgengine roll``: a roll made and not yet played, ``PLAYER D1 D2``: a continued game
  neither rolls again nor offers the cube again before that play (when every game in
  the file is finished: the next game's opening roll, ``PLAYER`` moving first);
* any other key its owner sets (the terminal saves its ``level``).

A game begun with nothing played yet is written as its header; its opening roll is the
``roll`` tag.
"""

from __future__ import annotations

import errno
import os
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bgengine.core.fileio import atomic_write
from bgengine.matches.game import is_crawford_game
from bgengine.matchfiles.files import read_match_file
from bgengine.matchfiles.record import (Action, GameRecord, GameStanding, MatchFileWarning, MatchRecord,
                                  MatchRecordError, check_scores, game_standing)
from bgengine.matchfiles.mat import mat_game, mat_head

__all__ = ["TAG", "SessionLog", "SavedSession", "SessionFileError", "load_session",
           "sessions_folder", "default_session_path", "check_session_path"]

#: The first word of every tag a session adds to its file.
TAG = "bgengine"


class SessionFileError(ValueError):
    """A file that cannot hold or continue a session; the message says why."""


def sessions_folder() -> Path:
    """Where sessions are saved by default: ``$XDG_DATA_HOME/bgengine/sessions``
    (``~/.local/share/bgengine/sessions`` when the variable is not set)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "bgengine" / "sessions"


def default_session_path(match_length: int, now: datetime | None = None,
                         folder: Path | None = None) -> Path:
    """A new file for a session: ``match7-20261124-194500.mat`` (``money-...`` for money
    play) in ``folder`` (default :func:`sessions_folder`), ``-2``, ``-3``... added when
    the name is taken.  The folder is not made here."""
    now = now or datetime.now()
    folder = sessions_folder() if folder is None else Path(folder)
    stem = (f"match{match_length}" if match_length else "money") + now.strftime("-%Y%m%d-%H%M%S")
    path, k = folder / f"{stem}.mat", 1
    while path.exists():
        k += 1
        path = folder / f"{stem}-{k}.mat"
    return path


def check_session_path(path: str | Path) -> Path:
    """``path`` as a session file's path: a ``.mat`` name (``SessionFileError`` else) that
    is not a folder (``IsADirectoryError``, before anything is played)."""
    path = Path(path)
    if path.suffix.lower() != ".mat":
        raise SessionFileError(f"{path}: a session is saved as a .mat file (a name ending in .mat)")
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    return path


class SessionLog:
    """The record of a session in play, written to ``path`` after every action.

    ``record``: the match so far (a new one, or a :class:`SavedSession`'s to go on with
    it); ``tags``: the session's own tags (keys without the ``bgengine`` word; values
    are text), written with every save and to be kept up to date by the owner.
    """

    def __init__(self, path: str | Path, record: MatchRecord) -> None:
        self.path = check_session_path(path)
        self.record = record
        self.tags: dict[str, str] = {}
        # the finished games' parts of the file, by index: a save replays only the
        # game in progress (a long match is not replayed whole after every move)
        self._finished: dict[int, str] = {}

    def start_game(self, score: tuple[int, int], crawford: bool) -> None:
        """A game begins at ``score`` (player 0's, player 1's points); saved with the next
        :meth:`save` or :meth:`add`."""
        self.record.games.append(GameRecord((int(score[0]), int(score[1])), [], bool(crawford)))

    def add(self, *actions: Action) -> None:
        """``actions`` happened in the game in progress; save."""
        self.record.games[-1].actions.extend(actions)
        self.save()

    def mark(self) -> tuple[int, int]:
        """The point the record has reached, for :meth:`rewind`."""
        games = self.record.games
        return len(games), len(games[-1].actions) if games else 0

    def rewind(self, mark: tuple[int, int]) -> None:
        """Forget what was recorded since :meth:`mark` gave ``mark`` (an undo); save."""
        n_games, n_actions = mark
        for i in [i for i in self._finished if i >= n_games - 1]:
            del self._finished[i]
        del self.record.games[n_games:]
        if self.record.games:
            del self.record.games[-1].actions[n_actions:]
        self.save()

    def save(self) -> None:
        """Write the file now (atomically)."""
        meta = {k: v for k, v in self.record.metadata.items() if not k.startswith(TAG + " ")}
        meta.update({f"{TAG} {k}": v for k, v in self.tags.items()})
        self.record.metadata = meta
        check_scores(self.record)
        parts = []
        for i, game in enumerate(self.record.games):
            text = self._finished.get(i)
            if text is None:
                text = mat_game(self.record, i)
                if game.win is not None:
                    self._finished[i] = text
            parts.append(text)
        data = (mat_head(self.record) + "".join(parts)).encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, lambda f: f.write(data))


@dataclass(frozen=True)
class SavedSession:
    """A session file read back: its ``record`` (checked), the ``standing`` of its
    unfinished last game (``None`` when every game is finished: the next one begins),
    and its tags: ``seed``, ``dice_state`` (for :meth:`bgengine.core.dice.Dice.setstate`),
    ``roll`` (``(player, d1, d2)`` rolled and not yet played; with no game in progress,
    the next game's opening roll) and the others by key."""

    path: Path
    record: MatchRecord
    standing: GameStanding | None
    seed: int | None = None
    dice_state: dict[str, Any] | None = None
    roll: tuple[int, int, int] | None = None
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def finished_games(self) -> list[GameRecord]:
        return [g for g in self.record.games if g.win is not None]

    @property
    def score(self) -> tuple[int, int]:
        """Points of players 0 and 1 after the finished games."""
        return _score_after(self.record)

    @property
    def crawford_done(self) -> bool:
        """The Crawford game has been played or begun (a match's later games are not
        Crawford games)."""
        games = self.record.games
        return any(g.crawford for g in games) or (
            bool(games) and is_crawford_game(self.record.length, games[0].score, False)
            and not games[0].crawford)


def _int_words(value: str, n: int, key: str, path: Path) -> list[int]:
    words = value.split()
    if len(words) != n or not all(w.isdigit() for w in words):
        raise SessionFileError(f"cannot continue {path}: its '{TAG} {key}' tag is not "
                               f"{n} whole number{'s' * (n != 1)} ({value!r})")
    return [int(w) for w in words]


def load_session(path: str | Path) -> SavedSession:
    """The session saved in ``path`` (a ``.mat`` file; any match file gnubg or another
    program wrote will do too), checked: every play legal, the match not over, the tags
    readable and fitting the game.  ``SessionFileError`` (a ``ValueError``) says what is
    wrong; a file that cannot be read raises ``OSError``."""
    path = check_session_path(path)
    try:
        with warnings.catch_warnings():
            # a session to continue stops short of the match's end by design: no warning
            warnings.filterwarnings("ignore", message=".*the match is unfinished",
                                    category=MatchFileWarning)
            record = read_match_file(path)
    except MatchRecordError as exc:
        raise SessionFileError(f"cannot continue {exc}") from None
    s = _score_after(record)
    if record.length and max(s) >= record.length:
        raise SessionFileError(f"cannot continue {path}: the match is over ({record.players[0]} "
                               f"{s[0]}, {record.players[1]} {s[1]} in a {record.length}-point "
                               "match)")
    tags = {k[len(TAG) + 1:]: v for k, v in record.metadata.items() if k.startswith(TAG + " ")}
    if record.games and not record.games[-1].actions:       # a game header and nothing more
        record.games.pop()
    standing = None
    if record.games and record.games[-1].win is None:
        standing = game_standing(record, len(record.games) - 1)
        if standing.result is not None:     # decided (a drop, the last checker) but no Win
            raise SessionFileError(f"cannot continue {path}: game {len(record.games)} is over "
                                   "but its result is missing")
    seed = _int_words(tags["seed"], 1, "seed", path)[0] if "seed" in tags else None
    dice_state = None
    if "dice" in tags:
        st, inc = _int_words(tags["dice"], 2, "dice", path)
        dice_state = {"state": st, "inc": inc}
    roll = None
    if "roll" in tags:
        player, d1, d2 = _int_words(tags["roll"], 3, "roll", path)
        fits = (standing.doubler == -1 and player == standing.on_roll if standing is not None
                else player in (0, 1) and d1 != d2)        # the next game's opening roll
        if not (fits and 1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise SessionFileError(f"cannot continue {path}: its roll ({tags['roll']!r}) does "
                                   "not fit the game in progress")
        roll = (player, d1, d2)
    return SavedSession(path, record, standing, seed, dice_state, roll, tags)


def _score_after(record: MatchRecord) -> tuple[int, int]:
    """Points of players 0 and 1 after ``record``'s finished games."""
    games = record.games
    if not games:
        return 0, 0
    s = list(games[-1].score)
    if games[-1].win is not None:
        s[games[-1].win.player] += games[-1].win.points
    return s[0], s[1]
