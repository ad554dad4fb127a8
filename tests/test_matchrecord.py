"""The match record, its replay, and the .mat and .sgf files (no gnubg needed).

The committed files under ``tests/data/matfiles`` were played and written by GNU
Backgammon itself (``make_matfiles.py``): every play in them must be legal for
bgengine, the .mat and .sgf of one match must give the same record, and writing
and reading back must give it again.  Broken files must fail with the game, the
move number and the reason.
"""

from __future__ import annotations

import pytest

from bgengine.notation.ids import GAME_DROP, GAME_OVER, GAME_RESIGNED
from bgengine.matchfiles.record import (Double, Drop, GameRecord, MatchRecord, MatchRecordError, Play,
                                  Resign, Take, Win, checked, move_numbers, replay)
from bgengine.matchfiles.mat import read_mat, write_mat
from bgengine.position import Position
from bgengine.matchfiles.sgf import parse_collection, read_sgf, write_sgf
from matfile_helpers import GNUBG_FILES, bgengine_match, mat_text, sgf_text


def kinds(match: MatchRecord) -> set[str]:
    return {type(a).__name__ for g in match.games for a in g.actions}


# ------------------------------------------------------------------ gnubg's own files

def test_the_committed_files_cover_the_cube_and_resignations():
    assert len(GNUBG_FILES) >= 5
    seen = set()
    for name in GNUBG_FILES:
        seen |= kinds(read_mat(mat_text(name)))
    assert {"Play", "Double", "Take", "Drop", "Resign", "Win"} <= seen


@pytest.mark.parametrize("name", GNUBG_FILES)
def test_gnubg_files_read_with_every_play_legal_and_agree(name):
    mat, sgf = read_mat(mat_text(name)), read_sgf(sgf_text(name))
    assert mat.games == sgf.games and mat.players == sgf.players == ("Anna Lee", "bob")
    assert mat.length == sgf.length
    plays = [m for m in replay(sgf) if isinstance(m.action, Play)]
    assert plays and all(m.move is not None for m in plays)
    # each play leads to the position the next action starts from
    moments = list(replay(sgf))
    for a, b in zip(moments, moments[1:]):
        if isinstance(a.action, Play) and a.game == b.game and not isinstance(b.action, Win):
            after = a.move.position
            assert b.position == (after if b.state.player_on_roll != a.state.player_on_roll
                                  else after.swap())


@pytest.mark.parametrize("name", GNUBG_FILES)
def test_gnubg_files_write_and_read_back(name):
    record = read_sgf(sgf_text(name))
    assert read_mat(write_mat(record)).games == record.games
    assert read_sgf(write_sgf(record)) == record
    again = read_mat(mat_text(name))
    assert read_mat(write_mat(again)) == again


def test_crawford_game_and_scores_follow_the_match():
    record = read_mat(mat_text("gnubg_match5"))
    assert [g.score for g in record.games] == [(0, 0), (0, 2), (4, 2), (4, 3)]
    assert [g.crawford for g in record.games] == [False, False, True, False]
    sgf = read_sgf(sgf_text("gnubg_match5"))
    assert [g.crawford for g in sgf.games] == [False, False, True, False]


def test_money_session_jacoby_rule_is_read_from_sgf_and_kept_in_mat():
    sgf = read_sgf(sgf_text("gnubg_money"))
    assert sgf.length == 0 and sgf.jacoby
    assert read_mat(write_mat(sgf)).jacoby           # our .mat says so in a tag
    assert not read_sgf(sgf_text("gnubg_money_nojacoby")).jacoby


# ------------------------------------------------------------------ replay

def test_replay_gives_states_as_gnubg_ids_hold_them():
    record = read_sgf(sgf_text("gnubg_match3"))
    moments = list(replay(record))
    first = moments[0]
    assert first.position == Position.initial() and first.state.dice == first.action.dice
    assert first.state.match_length == 3 and first.state.score == (0, 0)
    doubles = [m for m in moments if isinstance(m.action, (Take, Drop))]
    assert doubles and all(m.state.double_offered and m.state.turn == m.action.player
                           for m in doubles)
    ends = [m for m in moments if isinstance(m.action, Win)]
    assert len(ends) == len(record.games)
    assert all(m.state.game_state in (GAME_OVER, GAME_DROP, GAME_RESIGNED) for m in ends)
    assert max(ends[-1].state.score) >= 3


def test_move_numbers_follow_the_mat_lines():
    acts = [Play(1, (6, 3)), Play(0, (6, 5)), Play(1, (1, 1)), Double(0), Take(1), Win(0, 2)]
    assert move_numbers(acts) == [1, 2, 2, 3, 3, 3]
    assert move_numbers([Play(0, (6, 3)), Play(1, (6, 5)), Play(0, (4, 1))]) == [1, 1, 2]


def game(*actions, score=(0, 0), crawford=False) -> GameRecord:
    return GameRecord(score, list(actions), crawford)


def expect(record: MatchRecord, *parts: str) -> MatchRecordError:
    with pytest.raises(MatchRecordError) as info:
        list(replay(record))
    for p in parts:
        assert p in str(info.value)
    return info.value


def test_replay_refuses_rule_breaking_records():
    opening = Play(0, (3, 1), ((8, 5), (6, 5)))
    reply = Play(1, (6, 5), ((24, 18), (18, 13)))
    expect(MatchRecord(games=[game(opening, Play(1, (6, 5), ((24, 14),)))]),
           "game 1", "move 1", "65")
    err = expect(MatchRecord(games=[game(opening, reply, Play(1, (2, 1), ((13, 11),)))]),
                 "player 1 rolls, but it is player 0's turn")
    assert (err.game, err.move) == (1, 2)
    expect(MatchRecord(games=[game(opening, Take(1))]), "no double is offered")
    expect(MatchRecord(games=[game(opening, reply, Double(0), Take(1), Double(0))]),
           "player 1 owns the cube")
    expect(MatchRecord(length=5, games=[game(opening, Double(1), score=(4, 2), crawford=True)]),
           "Crawford")
    expect(MatchRecord(games=[game(opening, reply, Double(0), Drop(1), Win(0, 2))]),
           "the game gives player 0 1 point")
    expect(MatchRecord(games=[game(opening, Win(0, 1))]), "the game is not over")
    expect(MatchRecord(games=[game(Play(0, (3, 3), ((8, 5), (8, 5), (6, 3), (6, 3))))]),
           "cannot be a double")
    expect(MatchRecord(length=3, games=[game(opening, Resign(1, 1), Win(0, 1)),
                                        game(reply, score=(0, 1))]),
           "game 2", "expected 1-0")


def test_checked_spells_plays_the_bgengine_way():
    a = MatchRecord(games=[game(Play(0, (3, 1), ((6, 5), (8, 5))))])
    b = MatchRecord(games=[game(Play(0, (3, 1), ((8, 5), (6, 5))))])
    c = MatchRecord(games=[game(Play(0, (3, 1), ((8, 7), (7, 4))))])   # not 8/5 6/5: 8/4
    assert a != b and checked(a) == checked(b) and checked(c) != checked(a)


# ------------------------------------------------------------------ broken files

def break_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def test_an_illegal_play_in_a_mat_file_names_game_move_and_line():
    text = mat_text("gnubg_match3")
    bad = break_line(text, "  4) 31: 6/5 8/5", "  4) 31: 6/2 8/5")
    with pytest.raises(MatchRecordError) as info:
        read_mat(bad)
    err = info.value
    assert (err.game, err.move) == (1, 4) and "6/2" in str(err) and "31" in str(err)


def test_a_garbled_mat_line_names_game_move_and_line():
    text = mat_text("gnubg_match3")
    lineno = text.splitlines().index("  5) 53: 25/22 13/8              63: 6/3* 9/3 ") + 1
    bad = break_line(text, "  5) 53: 25/22 13/8 ", "  5) 53: 25/22 1x/8 ")
    with pytest.raises(MatchRecordError) as info:
        read_mat(bad)
    assert (info.value.game, info.value.move, info.value.line) == (1, 5, lineno)
    with pytest.raises(MatchRecordError, match="move 7 where move 6 was expected"):
        read_mat(break_line(text, "  6) 64:", "  7) 64:"))
    with pytest.raises(MatchRecordError, match="game 2: the score 0-3 does not follow"):
        read_mat(break_line(text, "root : 2", "root : 3") if "root : 2" in text
                 else break_line(text, "bob : 2", "bob : 3"))
    with pytest.raises(MatchRecordError, match="no 'N point match' line"):
        read_mat(text.replace(" 3 point match", ""))


def test_a_garbled_sgf_node_names_game_move_and_line():
    text = sgf_text("gnubg_match1")
    with pytest.raises(MatchRecordError) as info:
        read_sgf(text.replace(";W[", ";W[9", 1) if ";W[" in text else text)
    assert info.value.game == 1 and info.value.move is not None and info.value.line is not None
    with pytest.raises(MatchRecordError, match="SGF syntax"):
        read_sgf("(;FF[4]GM[6]MI[length:1")
    first_b = text.index(";B[") + 3
    bad = text[:first_b] + text[first_b:first_b + 2] + "zz" + text[first_b + 4:]
    with pytest.raises(MatchRecordError, match="game 1, move 1"):
        read_sgf(bad)


def test_parse_collection_keeps_the_main_line_and_escapes():
    trees = parse_collection("(;GM[6]C[a\\]b];B[31hfgf](;W[52]) (;W[64]))")
    props = [p for _, p in trees[0]]
    assert props[0]["C"] == ["a]b"] and props[1]["B"] == ["31hfgf"] and props[2]["W"] == ["52"]
    assert len(props) == 3


# ------------------------------------------------------------------ bgengine's own games

def test_a_match_played_by_bgengine_is_written_and_read_back():
    record = bgengine_match(5, seed=3)
    assert record.games[-1].win is not None and max(
        s + (g.win.points if g.win.player == i else 0)
        for g in record.games[-1:] for i, s in enumerate(g.score)) >= 5
    assert "Double" in kinds(record)
    same = checked(record)
    assert read_mat(write_mat(record)) == same
    assert read_sgf(write_sgf(record)) == same


# ------------------------------------------------------------------ files by name, command line

def test_match_files_by_name(tmp_path):
    from bgengine.matchfiles.files import read_match_file, write_match_file

    record = read_mat(mat_text("gnubg_money"))
    for name in ("a.mat", "b.sgf", "c.sgf.gz", "d.MAT.gz"):
        write_match_file(record, tmp_path / name)
        assert read_match_file(tmp_path / name).games == record.games
    with pytest.raises(ValueError, match=r"\.mat or \.sgf"):
        write_match_file(record, tmp_path / "e.txt")
    bad = tmp_path / "bad.mat"
    bad.write_text(break_line(mat_text("gnubg_match3"), "  4) 31: 6/5 8/5", "  4) 31: 6/2 8/5"))
    with pytest.raises(MatchRecordError) as info:
        read_match_file(bad)
    assert str(info.value).startswith(f"{bad}: game 1, move 4: ") and info.value.line == 10


def test_an_illegal_sgf_play_names_its_line():
    text = sgf_text("gnubg_match3")
    lines = text.splitlines()
    k = next(i for i, s in enumerate(lines) if s.startswith(";W[65xrrm]"))
    lines[k] = ";W[65xrrl]" + lines[k][len(";W[65xrrm]"):]           # 24/18 18/12: blocked
    with pytest.raises(MatchRecordError) as info:
        read_sgf("\n".join(lines))
    assert (info.value.game, info.value.move, info.value.line) == (1, 2, k + 1)
    assert "point 12 is blocked" in str(info.value)


def test_cli_matchfile_check_and_convert(tmp_path, capsys):
    from bgengine.cli import main
    from matfile_helpers import DATA

    files = [str(DATA / f"{n}.mat") for n in GNUBG_FILES]
    assert main(["matchfile", "check", *files]) == 0
    out = capsys.readouterr().out
    assert out.count("ok: ") == len(files) and "5-point match, Anna Lee vs bob: 4 games" in out
    bad = tmp_path / "bad.mat"
    bad.write_text(break_line(mat_text("gnubg_match3"), "  4) 31: 6/5 8/5", "  4) 31: 6/2 8/5"))
    assert main(["matchfile", "check", str(bad), files[0]]) == 1
    captured = capsys.readouterr()
    assert "game 1, move 4" in captured.err and "(line 10)" in captured.err
    assert "ok: " in captured.out
    out_sgf = tmp_path / "m5.sgf"
    assert main(["matchfile", "convert", str(DATA / "gnubg_match5.mat"), str(out_sgf)]) == 0
    assert read_sgf(out_sgf.read_text()).games == read_mat(mat_text("gnubg_match5")).games
    assert main(["matchfile", "convert", str(bad), str(tmp_path / "x.sgf")]) == 2
    assert not (tmp_path / "x.sgf").exists()
    assert main(["matchfile", "convert", str(tmp_path / "none.mat"), str(tmp_path / "y.sgf")]) == 2
    assert main(["matchfile", "show", str(tmp_path / "none.sgf")]) == 2
    assert "No such file" in capsys.readouterr().err
    assert main(["matchfile", "show", str(DATA / "gnubg_match3.mat"), "--game", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "game 3: Anna Lee 1, bob 2"
    assert lines[2].split()[:3] == ["1", "bob", "64:"]
    assert "4HPwATDgc/ABMA:" in lines[2] and "doubles to 2" in lines[3] and "takes" in lines[4]
    assert "wins" in lines[-1] and "game 1" not in "\n".join(lines)


def test_mat_files_laid_out_by_other_programs():
    """eXtreme Gammon's way: tags with spaces in their names, a Crawford tag, wider
    columns, ``bar`` and ``off`` as words, "and the match", CRLF line ends."""
    record = read_mat(mat_text("gnubg_match3"))
    lines = []
    for line in write_mat(record).splitlines():
        if line[:4].strip().endswith(")") or line.strip().startswith("Wins"):
            head, left, right = line[:5], line[5:33], line[33:]
            line = head + left.ljust(32) + right
            line = line.replace("25/", "bar/").replace("/0", "/off")
        lines.append(line)
    wins = [i for i, line in enumerate(lines) if "Wins" in line]
    lines[wins[-1]] += " and the match"
    # a win alone on a line of its own, numbered
    k = wins[0]
    number = int(lines[k - 1].split(")")[0]) + 1
    lines[k] = f"{number:3d})" + lines[k][5:]
    text = "\r\n".join(['; [Site "somewhere"]', '; [Player 1 "Anna Lee"]', '; [Crawford "On"]']
                       + lines) + "\r\n"
    assert "bar/" in text and "/off" in text and "and the match" in text
    again = read_mat(text)
    assert again.games == record.games and again.metadata["Player 1"] == "Anna Lee"
    off = read_mat(text.replace('[Crawford "On"]', '[Crawford "Off"]'))
    assert not off.crawford_rule and not any(g.crawford for g in off.games)
    assert read_mat(write_mat(off)) == off
    via_sgf = read_sgf(write_sgf(off))                 # .sgf has no place for "Player 1"
    assert via_sgf.games == off.games and not via_sgf.crawford_rule


def test_an_unfinished_match_is_written_and_read_back():
    record = read_sgf(sgf_text("gnubg_match5"))
    last = record.games[-1]
    cut = GameRecord(last.score, last.actions[:17], last.crawford)   # mid-game, mid-line
    unfinished = MatchRecord(record.players, record.length, record.games[:-1] + [cut],
                             record.crawford_rule, record.jacoby, dict(record.metadata))
    assert cut.win is None
    assert read_mat(write_mat(unfinished)) == unfinished
    assert read_sgf(write_sgf(unfinished)) == unfinished
    with pytest.raises(MatchRecordError, match="no result, but another game follows"):
        list(replay(MatchRecord(record.players, 5, [cut, *record.games[1:]])))


def test_a_result_no_resignation_explains_is_refused():
    text = mat_text("gnubg_match1")
    assert "Wins 2 points" in text
    with pytest.raises(MatchRecordError, match="not a single game, gammon or backgammon"):
        read_mat(text.replace("Wins 2 points", "Wins 5 points"))


@pytest.mark.parametrize("reader, text", [(read_mat, "mat"), (read_sgf, "sgf")])
def test_damaged_files_fail_only_with_a_match_record_error(reader, text):
    """Characters deleted, changed or inserted at random: the file reads, or the error
    is a MatchRecordError (never another exception)."""
    import random

    rng = random.Random(1)
    record = read_mat(mat_text("gnubg_match1"))
    base = write_mat(record) if text == "mat" else write_sgf(record)    # without gnubg's analysis
    failed = 0
    for _ in range(60):
        chars = list(base)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(chars))
            new = rng.choice("0123456789/:*()[];abxyz \n")
            op = rng.randrange(3)
            if op == 0:
                del chars[k]
            elif op == 1:
                chars[k] = new
            else:
                chars.insert(k, new)
        try:
            reader("".join(chars))
        except MatchRecordError:
            failed += 1
    assert failed > 10                     # most damage is found


def test_dice_rolled_before_a_resignation_are_not_a_play():
    text = mat_text("gnubg_match1")
    end = "                                  Wins 2 points"
    rolled = break_line(text, end, f" 26) 42:{'':<25}Wins 2 points")
    assert read_mat(rolled) == read_mat(text)


# ------------------------------------------------------------------ found by fuzzing (fuzz/crashes/)

@pytest.mark.parametrize("data", [b"\x1f\x8b", b"not gzip at all", b"\x1f\x8b\x08\x00" + bytes(6),
                                  __import__("gzip").compress(b" 1 point match\n", mtime=0)[:-6]])
def test_a_damaged_gzip_file_is_a_match_record_error(tmp_path, data):
    """A .gz that is no gzip, or is cut short, is bad input like any damaged file (it was
    gzip's BadGzipFile, EOFError or zlib.error: an OSError's 'cannot read' or a traceback)."""
    from bgengine.matchfiles.files import read_match_file

    for name in ("bad.mat.gz", "bad.sgf.gz"):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(MatchRecordError, match="not a valid gzip file") as info:
            read_match_file(path)
        assert str(info.value).startswith(str(path))


@pytest.mark.parametrize("players", [("a" * 40, "bob"), ("Anna\nLee", "bo\r\nb"),
                                     ("x" * 29, "y"), ("line\u2028break", "z")])
def test_any_names_write_a_file_that_reads_back(players):
    """A name of 29 characters or more ran into the other's (no blank left between: no
    score line), a name with a line break (an .sgf value may hold one) broke the line."""
    from dataclasses import replace

    record = replace(read_mat(mat_text("gnubg_match1")), players=players,
                     metadata={"Event": "two\nlines"})
    again = read_mat(write_mat(record))
    assert again.games == record.games
    assert again.players == tuple(" ".join(p.split()) for p in players)
    assert again.metadata["Event"] == "two lines"
