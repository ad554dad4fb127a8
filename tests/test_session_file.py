"""bgengine.matchfiles.session_file: a session saved as a .mat file as it goes, and read back."""

from __future__ import annotations

from datetime import datetime

import pytest

from bgengine.matchfiles.files import read_match_file
from bgengine.matchfiles.record import Double, Drop, MatchRecord, Play, Take, Win
from bgengine.matchfiles.session_file import (SessionFileError, SessionLog, default_session_path,
                                   load_session, sessions_folder)

OPENING = Play(1, (3, 1), ((8, 5), (6, 5)))
REPLY = Play(0, (6, 4), ((24, 18), (13, 9)))


def _log(tmp_path, length=3, name="s.mat") -> SessionLog:
    return SessionLog(tmp_path / name, MatchRecord(players=("bgengine", "you"), length=length))


def test_every_action_is_saved_and_reads_back(tmp_path):
    log = _log(tmp_path)
    log.tags.update(seed="7", dice="12345 3", level="hard")
    log.start_game((0, 0), False)
    log.save()
    assert read_match_file(log.path).games[0].actions == []       # a game begun: its header
    log.add(OPENING)
    assert read_match_file(log.path).games[0].actions == [OPENING]
    log.add(REPLY)
    log.tags["roll"] = "1 5 2"
    log.save()
    saved = load_session(log.path)
    assert saved.record.games[0].actions == [OPENING, REPLY]
    assert saved.seed == 7 and saved.dice_state == {"state": 12345, "inc": 3}
    assert saved.tags["level"] == "hard" and saved.roll == (1, 5, 2)
    st = saved.standing
    assert st.on_roll == 1 and st.plays == 2 and st.cube == 1 and st.owner == -1
    assert st.doubler == -1 and st.result is None
    assert saved.score == (0, 0) and not saved.crawford_done
    assert not list(tmp_path.glob("*.tmp"))            # the temporary files were renamed


def test_a_double_waiting_for_its_answer_and_a_finished_game(tmp_path):
    log = _log(tmp_path)
    log.start_game((0, 0), False)
    log.add(OPENING, REPLY, Double(1))
    st = load_session(log.path).standing
    assert st.doubler == 1 and st.on_roll == 1
    log.add(Drop(0), Win(1, 1))
    log.start_game((0, 1), False)
    log.tags["roll"] = "0 6 4"               # the next game's opening roll, player 0 first
    log.save()
    saved = load_session(log.path)
    assert saved.standing is None and saved.roll == (0, 6, 4) and saved.score == (0, 1)
    assert len(saved.finished_games) == 1


def test_undo_rewinds_the_file(tmp_path):
    log = _log(tmp_path)
    log.start_game((0, 0), False)
    log.add(OPENING)
    mark = log.mark()
    log.add(REPLY, Double(1), Take(0))
    log.rewind(mark)
    assert read_match_file(log.path).games[0].actions == [OPENING]


@pytest.mark.parametrize("tags, words", [
    ({"seed": "x"}, "'bgengine seed' tag is not 1 whole number"),
    ({"dice": "1"}, "'bgengine dice' tag is not 2 whole numbers"),
    ({"roll": "0 3 1"}, "does not fit"),                 # player 1 is on roll
    ({"roll": "1 7 1"}, "does not fit"),
])
def test_tags_that_do_not_fit_are_refused(tmp_path, tags, words):
    log = _log(tmp_path)
    log.start_game((0, 0), False)
    log.tags.update(tags)
    log.add(OPENING, REPLY)
    with pytest.raises(SessionFileError, match=words):
        load_session(log.path)


def test_files_that_cannot_be_continued(tmp_path):
    log = _log(tmp_path, length=1)
    log.start_game((0, 0), False)
    log.add(OPENING, REPLY, Double(1), Drop(0), Win(1, 1))
    with pytest.raises(SessionFileError, match=r"the match is over \(bgengine 0, you 1 in a "
                                                r"1-point match\)"):
        load_session(log.path)
    bad = tmp_path / "bad.mat"
    bad.write_text(" 3 point match\n\n Game 1\n a : 0    b : 0\n  1) 31: 8/5 6/4\n")
    with pytest.raises(SessionFileError, match=r"cannot continue .*bad.mat: game 1, move 1"):
        load_session(bad)
    with pytest.raises(SessionFileError, match="saved as a .mat file"):
        load_session(tmp_path / "x.sgf")
    with pytest.raises(SessionFileError, match="saved as a .mat file"):
        SessionLog(tmp_path / "x.txt", MatchRecord())
    with pytest.raises(FileNotFoundError):
        load_session(tmp_path / "none.mat")


def test_the_default_place_and_name(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert sessions_folder() == tmp_path / "bgengine" / "sessions"
    now = datetime(2026, 11, 24, 19, 45, 0)
    first = default_session_path(7, now)
    assert first == tmp_path / "bgengine" / "sessions" / "match7-20261124-194500.mat"
    first.parent.mkdir(parents=True)
    first.write_text("")
    assert default_session_path(7, now).name == "match7-20261124-194500-2.mat"
    assert default_session_path(0, now).name == "money-20261124-194500.mat"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert sessions_folder() == tmp_path / "home" / ".local" / "share" / "bgengine" / "sessions"


def test_the_file_is_write_mat_s_and_finished_games_are_not_replayed_again(tmp_path, monkeypatch):
    import bgengine.matchfiles.session_file as session_file
    from bgengine.matchfiles.mat import write_mat

    log = _log(tmp_path)
    log.start_game((0, 0), False)
    log.add(OPENING, REPLY, Double(1), Drop(0), Win(1, 1))
    log.start_game((0, 1), False)
    log.add(Play(0, (4, 2), ((8, 4), (6, 4))))
    assert log.path.read_text() == write_mat(log.record)
    replayed = []
    real = session_file.mat_game
    monkeypatch.setattr(session_file, "mat_game", lambda m, i: replayed.append(i) or real(m, i))
    log.add(Play(1, (5, 5), ((13, 8), (13, 8), (8, 3), (8, 3))))
    assert replayed == [1] and log.path.read_text() == write_mat(log.record)
    log.rewind((1, 0))                   # the first game's end taken back: replayed again
    assert replayed == [1, 0] and log.path.read_text() == write_mat(log.record)


def test_continuing_a_session_draws_no_warning_that_it_is_unfinished(tmp_path):
    """A session file stops short of the match's end by design."""
    import warnings

    from bgengine.matchfiles.record import MatchFileWarning
    path = tmp_path / "s.mat"
    path.write_text(" 3 point match\n\n Game 1\n player0 : 0                    You : 0\n"
                    "  1) 31: 8/5 6/5\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MatchFileWarning)
        saved = load_session(path)
    assert saved.record.length == 3
