"""The HTTP API of ``bgengine web`` (bgengine.protocols.web.api) through FastAPI's test client: every
endpoint, the browser board's game, the session limit, and bad input fuzzed (never a 500)."""

from __future__ import annotations

import json
import logging
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():     # newer Starlette would rather its client ran on httpx2
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bgengine.matchfiles.mat import read_mat  # noqa: E402
from bgengine.state import GameState  # noqa: E402
from bgengine.protocols.web.api import COOKIE, create_app  # noqa: E402
from engine_doubles import small_net_engine  # noqa: E402

START = "4HPwATDgc/ABMA"
GNUBGID = "4HPwATDgc/ABMA:cAkAAAAAAAAA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10"


@pytest.fixture(scope="module")
def engine():
    return small_net_engine()


@pytest.fixture(scope="module")
def client(engine):
    # raise_server_exceptions=False: a bug shows as the 500 a browser would get
    with TestClient(create_app(engine, max_trials=100, seed=0),
                    raise_server_exceptions=False) as c:
        yield c


def _post(client, path, body):
    return client.post(path, json=body)


# ---------------------------------------------------------------- the API on states
def test_move_plays_the_engines_choice(client, engine):
    r = _post(client, "/move", {"state": START, "dice": [3, 1]})
    assert r.status_code == 200, r.text
    doc = r.json()
    state = GameState.from_string(START)
    legal = state.position.legal_moves(3, 1)
    assert doc["play"] in [m.notation for m in legal]
    assert doc["dice"] == [3, 1] and doc["player"] == engine.player.name
    chosen = next(m for m in legal if m.notation == doc["play"])
    assert doc["after"].split(":")[0] == chosen.position.position_id
    # an XGID carries its own dice (5-2 here)
    doc = _post(client, "/move", {"state": XGID}).json()
    assert doc["dice"] == [5, 2]


def test_eval_and_hint_are_the_engines(client, engine):
    for text in (START, GNUBGID, XGID):
        doc = _post(client, "/eval", {"state": text}).json()
        want = engine.evaluate_state(GameState.from_string(text).without_dice()).to_dict()
        assert doc["probabilities"] == pytest.approx(want["probabilities"])
        assert doc["cubeful"] == pytest.approx(want["cubeful"])
    doc = _post(client, "/hint", {"state": START, "dice": [6, 5], "num": 3}).json()
    want = engine.hint(GameState.from_string(START).with_dice(6, 5), n=3).to_dict()
    assert [p["play"] for p in doc["plays"]] == [p["play"] for p in want["plays"]]
    cube = _post(client, "/hint", {"state": XGID.replace(":52:", ":00:")}).json()
    assert cube["plays"] == [] and cube["cube"]["proper_action"]


def test_rollout_of_a_position_and_of_plays(client):
    doc = _post(client, "/rollout", {"state": START, "trials": 36, "truncate": 4}).json()
    (r,) = doc["results"]
    assert r["trials"] == 36 and r["label"] == "position" and len(r["outputs"]) == 5
    doc = _post(client, "/rollout", {"state": START, "dice": [3, 1], "trials": 36,
                                     "candidates": 2, "truncate": 2}).json()
    assert len(doc["results"]) == 2 and doc["dice"] == [3, 1]


@pytest.mark.parametrize("path, body, status, words", [
    ("/move", {"state": "nonsense"}, 400, "Position ID"),
    ("/move", {"state": START}, 400, "no dice"),
    ("/move", {"state": START, "dice": [7, 1]}, 422, "less than or equal to 6"),
    ("/move", {"state": START, "dice": [3]}, 422, "dice"),
    ("/move", {"state": 12}, 422, "string"),
    ("/move", {"state": START, "extra": 1}, 422, "extra"),
    ("/eval", {}, 422, "state"),
    ("/eval", {"state": START, "plies": 2}, 400, "plies"),
    ("/hint", {"state": START, "rollout": 101}, 422, "too many rollout trials"),
    ("/hint", {"state": START, "num": 0}, 422, "num"),
    ("/hint", {"state": START, "plies": 1}, 400, "more than this server searches"),
    ("/rollout", {"state": START, "trials": 101}, 422, "too many trials: 101"),
    ("/rollout", {"state": START, "trials": "many"}, 422, "integer"),
    ("/rollout", {"state": "AAAAAAAAAAAAAA"}, 400, ""),
])
def test_bad_input_gets_a_clear_4xx(client, path, body, status, words):
    r = _post(client, path, body)
    assert r.status_code == status, r.text
    assert words.lower() in r.text.lower()


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=True), st.text(max_size=30),
                    st.lists(st.integers(-10, 10), max_size=4),
                    st.sampled_from([START, GNUBGID, XGID, "XGID=", ":", "4HPwATDgc/ABMA:",
                                     "XGID=-b----E-C---eE---c-e----B-:0:0:1:66:0:0:0:0:10"]))
_FIELDS = ["state", "dice", "plies", "num", "rollout", "seed", "trials", "candidates",
           "truncate", "length", "from", "to", "jacoby"]


@settings(max_examples=150)
@given(path=st.sampled_from(["/move", "/eval", "/hint", "/rollout", "/api/game/new",
                             "/api/game/move"]),
       body=st.one_of(st.dictionaries(st.sampled_from(_FIELDS), _VALUES, max_size=5),
                      _VALUES))
def test_fuzzed_requests_never_get_a_500(client, path, body):
    # json.dumps lets NaN and Infinity through: the server meets them too
    r = client.post(path, content=json.dumps(body).encode(),
                    headers={"content-type": "application/json"})
    assert r.status_code in (200, 400, 404, 409, 422), (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    if r.status_code != 200:
        detail = r.json()["detail"]
        assert detail and isinstance(detail, (str, list))


@settings(max_examples=100)
@given(text=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/:=-",
                    min_size=1, max_size=60))
def test_fuzzed_state_texts_never_get_a_500(client, text):
    for path in ("/eval", "/hint"):
        r = client.post(path, json={"state": text, "dice": [2, 1]} if path == "/hint"
                        else {"state": text})
        assert r.status_code in (200, 400), (path, text, r.text)


def test_no_play_in_a_finished_game_or_with_a_double_pending(client):
    from bgengine.position import Position
    from game_positions import board_from_points

    over = Position(board_from_points({}, {20: 15})).position_id     # the side on roll is off
    r = _post(client, "/move", {"state": over, "dice": [3, 1]})
    assert r.status_code == 400 and "no play to make" in r.json()["detail"]
    doubled = GameState.from_string(GNUBGID)
    from dataclasses import replace

    doubled = replace(doubled, match=replace(doubled.match, double_offered=True, turn=0))
    r = _post(client, "/move", {"state": doubled.to_gnubgid(), "dice": [3, 1]})
    assert r.status_code == 400 and "doubled" in r.json()["detail"]


def test_a_body_that_is_no_json(client):
    r = client.post("/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_openapi_documents_the_endpoints(client):
    schema = client.get("/openapi.json").json()
    for path in ("/move", "/eval", "/hint", "/rollout", "/api/game/new", "/api/game/move",
                 "/api/game/roll", "/api/game/match.mat"):
        assert path in schema["paths"], path
    assert client.get("/docs").status_code == 200


def test_each_request_is_logged_once(client, caplog):
    with caplog.at_level(logging.INFO, logger="bgengine.protocols.web"):
        client.post("/eval", json={"state": START})
        client.post("/eval", json={"state": "bad"})
    lines = [r.getMessage() for r in caplog.records if r.name == "bgengine.protocols.web"]
    assert len(lines) == 2
    assert "POST /eval 200" in lines[0] and "POST /eval 400" in lines[1]


# ---------------------------------------------------------------- the browser board
def test_the_page_and_its_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "<svg" in page.text and "board.js" in page.text
    for name in ("board.js", "board.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_a_game_through_the_api(engine):
    with TestClient(create_app(engine, seed=7), raise_server_exceptions=False) as c:
        assert c.get("/api/game").status_code == 404
        view = c.post("/api/game/new", json={"length": 1}).json()
        assert COOKIE in c.cookies and view["match"]["length"] == 1
        assert c.post("/api/game/take").status_code == 409
        for _ in range(400):
            phase = view["phase"]
            if phase == "match_over":
                break
            if phase == "roll":
                view = c.post("/api/game/roll").json()
            elif phase == "take":
                view = c.post("/api/game/take").json()
            elif view["move"]["complete"]:
                view = c.post("/api/game/done").json()
            else:
                targets = view["move"]["targets"]
                source = sorted(targets, key=int)[-1]
                r = c.post("/api/game/move", json={"from": int(source), "to": targets[source][0]})
                assert r.status_code == 200, r.text
                undone = c.post("/api/game/undo").json()
                assert undone["points"] == view["points"]
                view = c.post("/api/game/move",
                              json={"from": int(source), "to": targets[source][0]}).json()
                hint = c.post("/api/game/hint")
                assert hint.status_code == 200 and hint.json()["for"] == "play"
        assert view["phase"] == "match_over" and view["result"]["points"] >= 1
        mat = c.get("/api/game/match.mat")
        assert "attachment" in mat.headers["content-disposition"]
        match = read_mat(mat.text)
        assert match.length == 1 and match.games[-1].win is not None
        assert c.post("/api/game/next").status_code == 409
        bad = c.post("/api/game/move", json={"from": 30, "to": 1})
        assert bad.status_code == 422


def test_sessions_are_limited_and_saved(engine, tmp_path):
    app = create_app(engine, max_sessions=2, seed=1, save_dir=tmp_path)
    clients = [TestClient(app) for _ in range(3)]
    assert clients[0].post("/api/game/new", json={"length": 0}).status_code == 200
    assert clients[1].post("/api/game/new", json={"length": 0}).status_code == 200
    full = clients[2].post("/api/game/new", json={"length": 0})
    assert full.status_code == 503 and "sessions" in full.json()["detail"]
    # a browser that starts again keeps its slot
    assert clients[0].post("/api/game/new", json={"length": 3}).status_code == 200
    assert clients[0].get("/api/game").json()["match"]["length"] == 3
    # the engine passes a double in a money game at the start: the game is saved
    c = clients[1]
    view = c.get("/api/game").json()
    while view["phase"] != "roll":
        view = c.post("/api/game/done").json() if view["move"]["complete"] else c.post(
            "/api/game/move", json=_first_move(view)).json()
    c.post("/api/game/double")
    view = c.get("/api/game").json()
    while view["phase"] not in ("game_over",):
        if view["phase"] == "roll":
            view = c.post("/api/game/roll").json()
        elif view["phase"] == "take":
            view = c.post("/api/game/pass").json()
        elif view["move"]["complete"]:
            view = c.post("/api/game/done").json()
        else:
            view = c.post("/api/game/move", json=_first_move(view)).json()
    (saved,) = tmp_path.glob("*.mat")
    assert read_mat(saved.read_text()).games[0].win is not None


def _first_move(view) -> dict:
    targets = view["move"]["targets"]
    source = next(iter(targets))
    return {"from": int(source), "to": targets[source][0]}
