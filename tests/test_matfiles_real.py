"""Match files written by other programs and sites (``tests/data/matfiles/real/``, its
``SOURCES.md``): every one imports with every play legal, and GNU Backgammon's ``import mat``
of the same file gives the same moves, cube actions, positions, scores and results (that part
skipped when gnubg is not installed).

Also the defects of issue "Reliability II" (real files accepted), each with its test: a
UTF-8 byte-order mark; the last game recording the points the match needed rather than the
game's; a file cut at a line boundary imported with a warning saying where it stops; a
``Doubles => N`` whose N is not the cube's value (accepted, as gnubg accepts it, with a
warning naming the line).  And the rest of what other programs write: CRLF, Windows-1252
names, ``#`` comments, ``Resigns``, ``Cannot Move``, ``???``, a Crawford mark after
``Game N``, ratings after names, games after the match was won.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from bgengine.matchfiles.files import read_match_file
from bgengine.matchfiles.record import (Double, Drop, MatchFileWarning, MatchRecordError, Play, Resign,
                                  Take, Win, replay)
from bgengine.matchfiles.mat import read_mat, write_mat
from bgengine.matchfiles.sgf import read_sgf, write_sgf
from matfile_helpers import DATA, GNUBG, mat_text, run_gnubg

REAL = DATA / "real"
CORPUS = sorted(p.name for p in REAL.glob("*.mat"))

#: What each file holds, as gnubg imports it: games, the score after the last one (money
#: points in a session), whether the last game has its result.
EXPECTED = {
    "bgstudio_vka_75-raphael_gin_13p.mat": (14, (8, 13), True),
    "gammonview_B4_SrGcsKAQmoTyHlgJCbM_money.mat": (3, (7, 1), True),
    "gammonview_eXBNG5wZHS5Alu3P_5p.mat": (3, (2, 6), True),
    "gnubg_charlot1-charlot2_7p.mat": (4, (9, 2), True),
    "gnubg_roll_then_resign_1p.mat": (1, (1, 0), True),
    "gnubg_selfplay_drops_7p.mat": (6, (3, 7), True),
    "xg_hsbt_paris_2023_7p.mat": (7, (7, 4), True),
    "derived_bom_xg_hsbt_paris_2023_7p.mat": (7, (7, 4), True),
    "derived_latin1_xg_hsbt_paris_2023_7p.mat": (7, (7, 4), True),
    "derived_crlf_gnubg_selfplay_drops_7p.mat": (6, (3, 7), True),
    "derived_cut_mid_game_gnubg_selfplay_drops_7p.mat": (3, (1, 1), False),
    "derived_cut_at_game_header_gnubg_selfplay_drops_7p.mat": (2, (1, 1), True),
}


def real_text(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def read_quietly(read, *args):
    """``read(*args)`` and the MatchFileWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MatchFileWarning)
        record = read(*args)
    return record, [w.message for w in caught if isinstance(w.message, MatchFileWarning)]


def final_score(record) -> tuple[int, int]:
    g = record.games[-1]
    score = list(g.score)
    if g.win is not None:
        score[g.win.player] += g.win.points
    return score[0], score[1]


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# ------------------------------------------------------------------ the corpus

def test_the_corpus_is_what_sources_md_lists():
    sources = (REAL / "SOURCES.md").read_text()
    assert CORPUS and sorted(EXPECTED) == CORPUS
    for name in CORPUS:
        assert f"`{name}`" in sources, name
    assert sum(p.stat().st_size for p in REAL.iterdir()) < 1_000_000


@pytest.mark.parametrize("name", CORPUS)
def test_every_file_in_the_corpus_imports(name):
    record, notes = read_quietly(read_match_file, REAL / name)
    games, score, finished = EXPECTED[name]
    assert len(record.games) == games and final_score(record) == score
    assert (record.games[-1].win is not None) == finished
    list(replay(record))                                        # every play legal
    assert read_mat(write_mat(record)).games == record.games   # and written back either way
    assert read_sgf(write_sgf(record)).games == record.games
    cut = name.startswith("derived_cut")
    assert any("cut there" in n.note for n in notes) == cut, notes
    assert all(n.path == str(REAL / name) for n in notes)


def test_the_derived_files_are_their_originals():
    xg = read_match_file(REAL / "xg_hsbt_paris_2023_7p.mat")
    assert xg.players == ("Kévin Unger", "Maxence Job")
    assert xg.metadata["Site"] == "Paris, Fédération Française de Bridge"
    for name in ("derived_bom_xg_hsbt_paris_2023_7p.mat",
                 "derived_latin1_xg_hsbt_paris_2023_7p.mat"):
        assert read_match_file(REAL / name) == xg, name
    gnubg = read_match_file(REAL / "gnubg_selfplay_drops_7p.mat")
    assert read_match_file(REAL / "derived_crlf_gnubg_selfplay_drops_7p.mat") == gnubg
    cut, _ = read_quietly(read_match_file,
                          REAL / "derived_cut_mid_game_gnubg_selfplay_drops_7p.mat")
    assert cut.games[:2] == gnubg.games[:2]
    assert cut.games[2].actions == gnubg.games[2].actions[:len(cut.games[2].actions)]


def test_crlf_and_windows_1252_names(tmp_path):
    text = real_text("gnubg_selfplay_drops_7p.mat")
    assert "\r" not in text and "\r" in (REAL / "xg_hsbt_paris_2023_7p.mat").read_bytes().decode()
    assert read_mat(text.replace("\n", "\r\n")) == read_mat(text)
    latin = tmp_path / "latin.mat"
    latin.write_bytes(real_text("xg_hsbt_paris_2023_7p.mat").encode("cp1252"))
    assert read_match_file(latin).players[0] == "Kévin Unger"      # not "K\ufffdvin"


# ------------------------------------------------------------------ defect 1: a byte-order mark

def test_a_byte_order_mark_is_skipped(tmp_path):
    text = real_text("xg_hsbt_paris_2023_7p.mat")
    assert read_mat("\ufeff" + text) == read_mat(text)
    path = tmp_path / "bom.mat"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert read_match_file(path) == read_mat(text)
    sgf = write_sgf(read_mat(text))
    assert read_sgf("\ufeff" + sgf) == read_sgf(sgf)


# ------------------------------------------------------------------ defect 2: match-ending points

def test_the_last_game_may_record_the_points_the_match_needed():
    # a real file: Jade1 at 4 of 5 bears off with the cube on 2, "Wins 1 points and the match"
    text = real_text("gammonview_eXBNG5wZHS5Alu3P_5p.mat")
    assert text.rstrip().endswith("Wins 1 points and the match")
    record = read_mat(text)
    assert record.games[-1].win == Win(1, 2) and final_score(record) == (2, 6)   # gnubg's
    # gnubg's own file, the 2 points of bob's last game (cube on 2, bob at 2 of 3) as the 1 needed
    full = mat_text("gnubg_match3")
    assert full.rstrip().endswith("Wins 2 points")
    capped = full.rstrip()[:-len("Wins 2 points")] + "Wins 1 point and the match\n"
    assert read_mat(capped) == read_mat(full)
    # a resignation: charlot1 at 6 of 7 wins 3 (a backgammon resigned); as the 1 needed, gnubg
    # reads the least resignation that gives it, a single game
    charlot = real_text("gnubg_charlot1-charlot2_7p.mat")
    resigned = read_mat(edit(charlot, "      Wins 3 points", "      Wins 1 point and the match"))
    assert resigned.games[-1].actions[-2:] == [Resign(1, 1), Win(0, 1)]
    # anywhere else the points must be the game's
    with pytest.raises(MatchRecordError, match="gives player 1 2 points"):
        read_mat(edit(text, "Wins 1 points and the match", "Wins 3 points and the match"))
    xg = real_text("xg_hsbt_paris_2023_7p.mat")      # Kévin at 5 of 7 resigned to, cube on 2
    with pytest.raises(MatchRecordError, match="3 points with the cube at 2: not a single game"):
        read_mat(edit(xg, "Wins 2 point and the match", "Wins 3 point and the match"))


# ------------------------------------------------------------------ defect 3: a cut file

def test_a_file_cut_at_a_line_boundary_imports_with_a_warning(tmp_path):
    text = real_text("gnubg_selfplay_drops_7p.mat")
    whole = read_mat(text)
    lines = text.splitlines(keepends=True)
    game3 = lines.index(" Game 3\n")
    with pytest.warns(MatchFileWarning, match=r"game 3 after move 8.*cut there \(line 33\)"):
        mid = read_mat("".join(lines[:game3 + 10]))
    assert mid.games[:2] == whole.games[:2] and mid.games[2].win is None
    with pytest.warns(MatchFileWarning, match=r"after game 2 at 1-1 of a 7-point match"):
        at_header = read_mat("".join(lines[:game3 + 1]))       # just "Game 3": not read
    assert at_header.games == whole.games[:2]
    path = tmp_path / "cut.mat"
    path.write_text("".join(lines[:game3 + 1]))
    _, notes = read_quietly(read_match_file, path)
    assert [(n.path, n.line) for n in notes] == [(str(path), game3 + 1)]
    # every real file, cut at a few line boundaries: what is there, and a warning
    for name in [n for n in CORPUS if not n.startswith("derived")]:
        lines = real_text(name).splitlines(keepends=True)
        record = read_mat("".join(lines))
        first = next(i for i, line in enumerate(lines) if line.strip().startswith("Game 1")) + 2
        for n in range(first + 1, len(lines), max(1, (len(lines) - first) // 6)):
            cut, notes = read_quietly(read_mat, "".join(lines[:n]))
            short = cut.games != record.games     # a money session may stop after any game
            if short and (record.length or cut.games[-1].win is None):
                assert any("cut there" in note.note for note in notes), (name, n)
            assert cut.games[:-1] == record.games[:len(cut.games) - 1], (name, n)


def test_a_cut_file_is_warned_about_on_the_command_line(tmp_path, capsys):
    from bgengine.cli import main

    lines = real_text("gnubg_selfplay_drops_7p.mat").splitlines(keepends=True)
    path = tmp_path / "cut.mat"
    path.write_text("".join(lines[:lines.index(" Game 3\n") + 1]))
    assert main(["matchfile", "check", str(path)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"bgengine: warning: {path}: it stops after "
                                                   "game 2 at 1-1 of a 7-point match"), err
    assert main(["analyse", str(path), "--plies", "0", "--quiet"]) == 0
    assert "bgengine: warning:" in capsys.readouterr().err


# ------------------------------------------------------------------ defect 4: a stated cube value

def test_a_double_stating_another_cube_value_is_read_as_gnubg_reads_it():
    text = real_text("gnubg_selfplay_drops_7p.mat")
    big = edit(text, "  4)  Doubles => 2                Drops\n",
               "  4)  Doubles => 99999999999999999999  Drops\n")
    with pytest.warns(MatchFileWarning, match=r"game 1, move 4: 'Doubles => 99999999999999999999'"
                                              r", but the cube is at 1: the double is to 2.*"
                                              r"\(line 10\)"):
        record = read_mat(big)
    assert record == read_mat(text)
    _, notes = read_quietly(read_mat, text)
    assert notes == []                                # the right values: no word


# ------------------------------------------------------------------ what else other programs write

def test_the_dice_alone_are_read_as_gnubg_reads_them():
    # the roll of a player who then resigned, the win on the next line (gnubg's own file)
    record = read_mat(real_text("gnubg_roll_then_resign_1p.mat"))
    assert record.games[0].actions[-2:] == [Resign(1, 1), Win(0, 1)]
    assert [a.dice for a in record.games[0].actions if isinstance(a, Play)] == [(6, 2), (6, 2)]
    # XG's "???" there too, and Backgammon Studio's "Cannot Move" for a forfeited roll
    xg = read_mat(real_text("xg_hsbt_paris_2023_7p.mat"))
    assert xg.games[1].actions[-2:] == [Resign(1, 1), Win(0, 2)]
    studio = real_text("bgstudio_vka_75-raphael_gin_13p.mat")
    assert "64: Cannot Move" in studio
    assert read_mat(studio.replace("Cannot Move", "")) == read_mat(studio)
    # a forced play left out is that play (gnubg: the only legal one)
    text = real_text("gnubg_selfplay_drops_7p.mat")
    assert read_mat(edit(text, "  5) 64: 25/21 ", "  5) 64: ")) == read_mat(text)
    # anywhere else the dice alone are refused
    with pytest.raises(MatchRecordError, match=r"game 1, move 2: 33: \(no play\): no move given"):
        read_mat(edit(text, "  2) 33: 24/21 24/21 13/10 13/10 ", "  2) 33: ???"))


def test_comments_resigns_crawford_marks_ratings_and_empty_lines():
    text = real_text("gnubg_charlot1-charlot2_7p.mat")
    record = read_mat(text)
    variants = [
        "# written by hand\n" + text.replace(" 7 point match", "# a comment\n 7 point match"),
        edit(text, " 27) 44: 5/1 2/0 2/0 1/0         \n",
             " 27) 44: 5/1 2/0 2/0 1/0         Resigns\n"),
        edit(text, " Game 4\n", " Game 4 (Crawford)\n"),
        text.replace(" charlot1 : ", " charlot1,1650.25 : ")
            .replace(" charlot2 : ", " charlot2,1540 : "),
        edit(text, " 27) 44: 5/1 2/0 2/0 1/0         \n",
             " 27) 44: 5/1 2/0 2/0 1/0         \n 28)\n"),
    ]
    for k, variant in enumerate(variants):
        assert read_mat(variant).games == record.games, k
        assert read_mat(variant).players == record.players, k


def test_games_after_the_match_was_won_are_left_out():
    text = real_text("gnubg_charlot1-charlot2_7p.mat")
    extra = text + " Game 5\n charlot1 : 9                   charlot2 : 2\n  1) 31: 8/5 6/5\n"
    line = text.count("\n") + 1
    with pytest.warns(MatchFileWarning, match="game 5 starts at 9-2, after the 7-point match was "
                                              rf"won: it is left out.*\(line {line}\)"):
        assert read_mat(extra) == read_mat(text)
    with pytest.raises(MatchRecordError, match="no score line"):
        read_mat(edit(text, " charlot1 : 0                   charlot2 : 2\n", ""))


# ------------------------------------------------------------------ gnubg reads them the same

#: Variants of the real files made here, each read by gnubg as well: a rating after the names
#: (GamesGrid), a Crawford mark, "Resigns", "#" comments, a double stating 99999999999999999999,
#: a capped resignation, a forced play left out, a game after the match was won.
def _variants() -> dict[str, str]:
    charlot = real_text("gnubg_charlot1-charlot2_7p.mat")
    drops = real_text("gnubg_selfplay_drops_7p.mat")
    return {
        "v_ratings.mat": charlot.replace(" charlot1 : ", " charlot1,1650 : "),
        "v_crawford_mark.mat": edit(charlot, " Game 4\n", " Game 4 (Crawford)\n"),
        "v_resigns.mat": edit(charlot, " 27) 44: 5/1 2/0 2/0 1/0         \n",
                              " 27) 44: 5/1 2/0 2/0 1/0         Resigns\n"),
        "v_comments.mat": "# a comment\n" + charlot,
        "v_capped_resignation.mat": edit(charlot, "      Wins 3 points",
                                         "      Wins 1 point and the match"),
        "v_doubles.mat": edit(drops, "  4)  Doubles => 2                Drops\n",
                              "  4)  Doubles => 99999999999999999999  Drops\n"),
        "v_forced.mat": edit(drops, "  5) 64: 25/21 ", "  5) 64: "),
        "v_after_the_match.mat": (charlot + " Game 5\n charlot1 : 9                   "
                                  "charlot2 : 2\n  1) 31: 8/5 6/5\n"),
    }


KINDS = {Play: "move", Double: "double", Take: "take", Drop: "drop", Resign: "resign"}


def gnubg_differences(record, seen: dict) -> list:
    """Where gnubg's ``gnubg.match()`` of an imported file differs from bgengine's reading
    of it: the players, each game's score, Crawford flag, actions (player, dice, the
    Position ID before each play and double; gnubg's player "X" is player 0) and result."""
    out: list = []
    info = seen["match-info"]
    if (info["X"]["name"], info["O"]["name"]) != record.players:
        out.append(("players", info["X"], info["O"]))
    if len(seen["games"]) != len(record.games):
        return out + [("games", len(seen["games"]), len(record.games))]
    ours: list[list] = [[] for _ in record.games]
    for m in replay(record):
        ours[m.game].append(m)
    for i, (moments, game, g) in enumerate(zip(ours, seen["games"], record.games)):
        gi = game["info"]
        if (gi["score-X"], gi["score-O"]) != g.score:
            out.append((i + 1, "score", gi, g.score))
        if record.length and bool(gi.get("crawford")) != g.crawford:
            out.append((i + 1, "crawford", gi, g.crawford))
        theirs = [r for r in game["game"] if r["action"] in KINDS.values()]
        mine = [m for m in moments if not isinstance(m.action, Win)]
        if [KINDS[type(m.action)] for m in mine] != [r["action"] for r in theirs]:
            out.append((i + 1, "actions"))
            continue
        for m, r in zip(mine, theirs):
            if "XO".index(r["player"]) != m.action.player:
                out.append((i + 1, m.number, "player"))
            if isinstance(m.action, Play) and sorted(r["dice"]) != sorted(m.action.dice):
                out.append((i + 1, m.number, "dice"))
            if isinstance(m.action, (Play, Double)) and r["board"] != m.position.position_id:
                out.append((i + 1, m.number, "position"))
        win = g.win
        if gi.get("winner") is None:
            if win is not None:
                out.append((i + 1, "gnubg has no result", win))
        elif win is None or ("XO".index(gi["winner"]), gi["points-won"]) != (win.player,
                                                                              win.points):
            out.append((i + 1, "result", gi, win))
        elif bool(gi["resigned"]) != (bool(mine) and isinstance(mine[-1].action, Resign)):
            out.append((i + 1, "resigned", gi))
    return out


@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_imports_every_file_the_same(tmp_path):
    files: dict[str, Path] = {name: REAL / name for name in CORPUS}
    for name, text in _variants().items():
        files[name] = tmp_path / name
        files[name].write_text(text)
    lines = ["import gnubg, json"]
    for name, path in files.items():
        lines += [f"gnubg.command({'import mat ' + str(path)!r})",
                  f"gnubg.command({'save match ' + name + '.sgf'!r})"]
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue                  # gnubg.match() crashes on names that are not UTF-8
        lines.append(f"json.dump(gnubg.match(0, 1, 0, 0), open({name + '.json'!r}, 'w'), "
                     "default=str)")
    run_gnubg("\n".join(lines) + "\n", tmp_path)
    for name, path in files.items():
        record, _ = read_quietly(read_match_file, path)
        saved, _ = read_quietly(read_match_file, tmp_path / f"{name}.sgf")
        assert saved.games == record.games, name          # gnubg's own .sgf of what it read
        assert saved.players == record.players, name
        seen = tmp_path / f"{name}.json"
        if seen.exists():
            assert gnubg_differences(record, json.loads(seen.read_text())) == [], name
        else:
            assert name == "derived_latin1_xg_hsbt_paris_2023_7p.mat"
