"""The HTTP layer of ``bgengine web`` (FastAPI): a JSON API on game states and the browser
board's actions, kept thin.

The API (OpenAPI documentation at ``/docs``, the schema at ``/openapi.json``):

* ``POST /move``, ``/eval``, ``/hint``, ``/rollout``: a game state as text (a Position
  ID, gnubg's ``PositionID:MatchID`` or an XGID, :meth:`bgengine.state.GameState.from_string`)
  and options in a JSON body; the engine's play, evaluation, advice
  (:meth:`bgengine.decisions.engine.Engine.hint`) or a rollout (:mod:`bgengine.decisions.rollouts`).  A state
  is read as on the command line (``bgengine --help``: the ``XGID=`` prefix and gnubg's
  labels optional, a Position ID alone without the Jacoby rule); an ``after`` (of
  ``/move``, of each play of ``/hint``) is gnubg's ID of the state after the play, the
  opponent on roll, as ``bgengine moves`` and gnubg show it.
* ``/api/game...``: the browser board's game (:class:`bgengine.protocols.web.session.BoardSession`),
  one per browser, found by a cookie.

Bad input gets a 400 (a state that cannot be read, dice that do not fit: the message
says what) or a 422 (a field of the wrong type or out of range: FastAPI's validation,
which names the field; more work than the server's limits); an action the game does not
allow now gets a 409; a body too large a 413, a busy server a 503 with ``Retry-After``;
never a 500.  The limits are one policy, :class:`bgengine.protocols.web.limits.WebLimits`.  Each
request is logged at INFO, one line.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Optional

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from bgengine.decisions.engine import Engine, EngineError
from bgengine.decisions.rollouts import rollout_moves, rollout_position
from bgengine.state import GameState
from bgengine.protocols.web.limits import BodyLimit, Busy, TooMuchWork, WebLimits, WorkPool, check_work
from bgengine.protocols.web.session import BoardSession, SessionError
from bgengine.protocols.web.store import OwnerFull, SessionStore, StoreFull

__all__ = ["create_app", "COOKIE", "MAX_TRIALS"]

log = logging.getLogger("bgengine.protocols.web")

#: The cookie that holds a browser's session key.
COOKIE = "bgengine_session"

#: Default ceiling on the trials of one rolled-out play.
MAX_TRIALS = WebLimits.max_trials

STATIC = Path(__file__).resolve().parent / "static"

Die = Annotated[int, Field(ge=1, le=6)]
StateText = Annotated[str, Field(max_length=200, description=(
    "a Position ID (money, cube centred), gnubg's PositionID:MatchID or an XGID"))]
Dice = Annotated[Optional[tuple[Die, Die]], Field(
    None, description="the roll, e.g. [3, 1] (default: the state's own dice)")]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StateRequest(_Body):
    state: StateText


class MoveRequest(_Body):
    state: StateText
    dice: Dice = None


class EvalRequest(_Body):
    state: StateText
    plies: Optional[Annotated[int, Field(ge=0, le=3)]] = Field(
        None, description="lookahead (at most the server's --plies; default: that)")


class HintRequest(EvalRequest):
    dice: Dice = None
    num: Annotated[int, Field(ge=1, le=100)] = Field(5, description="plays to show")
    rollout: Annotated[int, Field(ge=0)] = Field(
        0, description="roll out the position or each play shown this many times (0: no)")
    seed: Annotated[int, Field(ge=0, lt=1 << 63)] = 0


class RolloutRequest(_Body):
    state: StateText
    dice: Dice = Field(None, description="roll out the best plays of this roll instead")
    trials: Annotated[int, Field(ge=1)] = 1296
    candidates: Annotated[int, Field(ge=1, le=20)] = 5
    truncate: Annotated[int, Field(ge=0, le=10000)] = 0
    seed: Annotated[int, Field(ge=0, lt=1 << 63)] = 0


class NewGameRequest(_Body):
    length: Annotated[int, Field(ge=0, le=64)] = Field(0, description="0: money play")
    jacoby: bool = False


class CheckerMove(_Body):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    source: Annotated[int, Field(ge=0, le=25, alias="from")]
    dest: Annotated[int, Field(ge=0, le=25, alias="to")]


class BadRequest(ValueError):
    """Input the API refuses with a 400."""


def create_app(engine: Engine, *, limits: WebLimits | None = None, threads: int = 1,
               seed: int | None = None, save_dir: str | Path | None = None,
               max_sessions: int | None = None, session_ttl: float | None = None,
               max_trials: int | None = None) -> FastAPI:
    """The application around ``engine``.

    ``limits``: the server's resource limits (default :class:`WebLimits()`);
    ``max_sessions``, ``session_ttl`` and ``max_trials``, when given, replace those of
    ``limits``; ``threads``: a rollout's threads; ``seed``: the dice of the n-th game
    session are ``seed + n`` (random when ``None``); ``save_dir``: write every finished
    match (or money game) there as a ``.mat`` file.
    """
    limits = limits or WebLimits()
    given = {k: v for k, v in (("max_sessions", max_sessions), ("session_ttl", session_ttl),
                               ("max_trials", max_trials)) if v is not None}
    if "max_trials" in given:
        given.setdefault("max_work", max(limits.max_work, given["max_trials"]))
    if "max_sessions" in given:
        given.setdefault("sessions_per_client",
                         min(limits.sessions_per_client, given["max_sessions"]))
    limits = dataclasses.replace(limits, **given)
    app = FastAPI(title="bgengine", summary="A backgammon engine over HTTP",
                  description="Plays, evaluations, hints and rollouts of game states, and a "
                              "browser board at `/`.  States are Position IDs, gnubg's "
                              "`PositionID:MatchID` or XGIDs.")
    store: SessionStore[BoardSession] = SessionStore(
        limits.max_sessions, limits.session_ttl, per_owner=limits.sessions_per_client,
        unused_ttl=limits.unplayed_ttl)
    pool = WorkPool(limits)
    app.state.limits, app.state.pool = limits, pool
    # outside every other layer: a body is refused before anything reads it
    app.add_middleware(BodyLimit, max_body=limits.max_body)
    counter = iter(range(1 << 62))
    saves = Path(save_dir) if save_dir is not None else None

    # ------------------------------------------------------------ plumbing
    @app.middleware("http")
    async def log_request(request: Request, call_next):
        start = time.perf_counter()
        response = await call_next(request)
        client = request.client.host if request.client else "-"
        log.info("%s %s %s %d %.0f ms", client, request.method, request.url.path,
                 response.status_code, 1000 * (time.perf_counter() - start))
        return response

    @app.exception_handler(ValueError)
    async def bad_input(request: Request, exc: ValueError) -> JSONResponse:
        status = 409 if isinstance(exc, SessionError) else 400
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.exception_handler(EngineError)
    async def engine_refused(request: Request, exc: EngineError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(TooMuchWork)
    async def too_much(request: Request, exc: TooMuchWork) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(StoreFull)
    async def full(request: Request, exc: StoreFull) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, headers={"Retry-After": str(exc.retry_after)},
                            status_code=429 if isinstance(exc, OwnerFull) else 503)

    @app.exception_handler(Busy)
    async def busy(request: Request, exc: Busy) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, headers={"Retry-After": str(exc.retry_after)},
                            status_code=503)

    def state_of(text: str, dice=None, need_dice: bool = False) -> GameState:
        state = GameState.from_string(text)
        if dice is not None:
            state = state.with_dice(*dice)
        if need_dice:
            m = state.match
            if m.game_state_name != "playing" or m.double_offered or m.resignation \
                    or state.position.is_game_over():
                raise BadRequest(f"no play to make: {state.summary()}")
            if state.dice == (0, 0):
                raise BadRequest("no dice: give \"dice\" or a state with a roll")
        return state

    def network():
        if engine.network is None:
            raise BadRequest("this server has no network to roll out with")
        return engine.network

    # ------------------------------------------------------------ the API on states
    @app.post("/move", tags=["engine"], summary="The engine's play of a roll")
    def move(req: MoveRequest) -> dict[str, Any]:
        state = state_of(req.state, req.dice, need_dice=True)
        d1, d2 = state.dice
        legal = state.position.legal_moves(d1, d2)
        with pool.slot():
            k = engine.choose_index_at(state.board, d1, d2, state.match) if len(legal) > 1 else 0
        m = legal[k]
        return {"state": state.to_gnubgid(), "dice": [d1, d2], "play": m.notation,
                "steps": [list(s) for s in m.steps],
                "after": Engine.state_after(state, m).to_gnubgid(), "player": engine.player.name}

    @app.post("/eval", tags=["engine"], summary="Probabilities and equities before the roll")
    def evaluate(req: EvalRequest) -> dict[str, Any]:
        state = state_of(req.state)
        if state.match.game_state_name != "playing":
            raise BadRequest(f"no evaluation: {state.summary()}")
        with pool.slot():
            return engine.evaluate_state(state, plies=req.plies).to_dict()

    @app.post("/hint", tags=["engine"],
              summary="The best plays of a roll, or the cube action before it")
    def hint(req: HintRequest) -> dict[str, Any]:
        state = state_of(req.state, req.dice)
        if req.rollout:
            # a play hint rolls out each play shown; a cube hint the position with and
            # without the double
            check_work(limits, req.rollout, req.num if state.dice != (0, 0) else 2,
                       what="rollout trials")
        if req.plies is not None and req.plies > engine.plies:
            raise BadRequest(f"{req.plies}-ply is more than this server searches "
                             f"({engine.plies}-ply; start it with --plies {req.plies})")
        with pool.slot():
            return engine.hint(state, n=req.num, plies=req.plies, rollout=req.rollout,
                               seed=req.seed, threads=threads).to_dict()

    @app.post("/rollout", tags=["engine"],
              summary="Roll out the position before the roll, or the best plays of a roll")
    def rollout(req: RolloutRequest) -> dict[str, Any]:
        state = state_of(req.state, req.dice)
        check_work(limits, req.trials, req.candidates if state.dice != (0, 0) else 1)
        if state.position.is_game_over():
            raise BadRequest("the game is over in this position: nothing to roll out")
        kw = dict(seed=req.seed, truncate=req.truncate, n_threads=threads)
        with pool.slot():
            if state.dice != (0, 0):
                results = rollout_moves(network(), state.board, *state.dice,
                                        trials=req.trials, candidates=req.candidates, **kw)
            else:
                results = [rollout_position(network(), state.board, req.trials, **kw)]
        return {"state": state.to_gnubgid(), "dice": list(state.dice) if state.dice[0] else None,
                "results": [asdict(r) for r in results]}

    # ------------------------------------------------------------ the browser board
    def session_of(request: Request) -> BoardSession:
        s = store.get(request.cookies.get(COOKIE))
        if s is None:
            raise _NoGame()
        return s

    def act(request: Request, action) -> dict[str, Any]:
        s = session_of(request)
        with pool.slot(), s.lock:
            action(s)
            if saves is not None and (path := s.save_mat(saves)) is not None:
                log.info("the match is saved in %s", path)
            return s.view()

    @app.post("/api/game/new", tags=["board"], summary="Start a new match or money session")
    def new_game(req: NewGameRequest, request: Request, response: Response) -> dict[str, Any]:
        s = BoardSession(engine, match_length=req.length, jacoby=req.jacoby,
                         seed=None if seed is None else seed + next(counter))
        key = request.cookies.get(COOKIE)
        key = store.put(s, key if store.get(key) is not None else None,
                        owner=request.client.host if request.client else None)
        response.set_cookie(COOKIE, key, httponly=True, samesite="strict")
        with pool.slot(), s.lock:
            return s.view()

    @app.get("/api/game", tags=["board"], summary="The table of this browser's game")
    def game(request: Request) -> dict[str, Any]:
        return act(request, lambda s: None)

    for name, doc in (("roll", "Roll the dice"), ("double", "Offer the engine a double"),
                      ("take", "Take the engine's double"), ("pass", "Pass the engine's double"),
                      ("accept", "Accept the engine's offer to resign"),
                      ("reject", "Reject the engine's offer to resign: it plays on"),
                      ("undo", "Take back the last checker moved this turn"),
                      ("done", "The play is finished: the engine's turn"),
                      ("next", "Start the next game")):
        method = {"pass": "pass_", "done": "commit", "next": "next_game"}.get(name, name)

        def endpoint(request: Request, _method: str = method) -> dict[str, Any]:
            return act(request, lambda s: getattr(s, _method)())

        app.post(f"/api/game/{name}", tags=["board"], summary=doc, name=name)(endpoint)

    @app.post("/api/game/move", tags=["board"],
              summary="Move a checker from a point to another (25: the bar, 0: off)")
    def move_checker(req: CheckerMove, request: Request) -> dict[str, Any]:
        return act(request, lambda s: s.move(req.source, req.dest))

    @app.post("/api/game/hint", tags=["board"], summary="The engine's advice for you now")
    def game_hint(request: Request) -> dict[str, Any]:
        s = session_of(request)
        with pool.slot(), s.lock:
            return s.hint()

    @app.get("/api/game/match.mat", tags=["board"], response_class=PlainTextResponse,
             summary="The match so far as a .mat file")
    def mat(request: Request) -> PlainTextResponse:
        s = session_of(request)
        with s.lock:
            text = s.mat_text()
        return PlainTextResponse(text, headers={
            "Content-Disposition": 'attachment; filename="bgengine-match.mat"'})

    @app.exception_handler(_NoGame)
    async def no_game(request: Request, exc: _NoGame) -> JSONResponse:
        return JSONResponse({"detail": "no game in this browser: start one (POST /api/game/new)"},
                            status_code=404)

    # ------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


class _NoGame(Exception):
    """The request's browser has no game (no cookie, or its session was dropped)."""

