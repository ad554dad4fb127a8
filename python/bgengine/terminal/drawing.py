"""What the terminal shows: the board from the human's side with pips, cube, score and
gnubg's IDs, and the session's messages."""

from __future__ import annotations

from bgengine.decisions.cube import MAX_CUBE, CubeInfo
from bgengine.matches.game import MatchScore
from bgengine.terminal.table import ENGINE, HUMAN, TableGame

__all__ = ["board_text", "double_refusal", "banner_lines", "score_line", "game_over_lines", "final_line"]


def board_text(g: TableGame, match: MatchScore, mid: str) -> str:
    """Game ``g`` drawn from the human's side (X at the bottom), with the ``match``
    score, pips, the cube, the Position ID and ``mid``, the Match ID."""
    lines = g.board.to_text("X", "O").splitlines()[:-2]
    h_pips, e_pips = g.board.pips()
    h_off, e_off = g.board.borne_off()
    score = match.score
    head = f" Game {g.number}"
    if match.length:
        head += (f" - match to {match.length}: you {score[HUMAN]}, "
                 f"engine {score[ENGINE]}")
        if g.crawford:
            head += " (Crawford game: no doubling)"
    else:
        head += f" - money play: you {score[HUMAN]}, engine {score[ENGINE]}"
    owner = {-1: "centred", ENGINE: "owned by the engine", HUMAN: "yours"}[g.cube_owner]
    who = "you" if g.turn == HUMAN else "engine"
    dice = f"{g.dice[0]}-{g.dice[1]}" if g.dice else "not rolled"
    on_roll_pos = g.board if g.turn == HUMAN else g.board.swap()
    out = [head] + lines + [
        f" X you:    pips {h_pips:3d}, off {h_off:2d}     O engine: pips {e_pips:3d}, off {e_off:2d}",
        f" Cube {g.cube} ({owner}).  On roll: {who}, dice {dice}.",
        f" Position ID: {on_roll_pos.position_id}   Match ID: {mid}",
    ]
    return "\n".join(out)


def banner_lines(match_length: int, jacoby: bool, level: str, engine_name: str, seed: int,
                 notes: list[str]) -> list[str]:
    """The greeting: what is played, against whom, the dice seed and ``notes``."""
    kind = f"a match to {match_length} points" if match_length else "money play"
    if jacoby:
        kind += " (Jacoby rule)"
    return [f"bgengine play: {kind} against the engine ({level}: {engine_name}).",
            f"Dice seed {seed} (replay this session with --seed {seed}).",
            *notes,
            "You are X and move from your 24-point (top right) to your 1-point (bottom right).",
            "Type moves like 24/18 13/11; 'help' lists the commands."]


def score_line(match: MatchScore, crawford: bool) -> str:
    """The score (``crawford``: the game in progress is the Crawford game)."""
    e, h = match.score
    if match.length:
        extra = " (Crawford game)" if crawford else ""
        return f"Match to {match.length}: you {h}, engine {e}{extra}."
    return f"Money play, {match.games} game(s) finished: you {h} points, engine {e} points."


def game_over_lines(match: MatchScore, winner: int, number: int, how: str, points: int) -> list[str]:
    """Game ``number`` won by seat ``winner`` (``how``, ``points``), and the score after it."""
    who = "You win" if winner == HUMAN else "The engine wins"
    pts = f"{points} point{'s' * (points != 1)}"
    lines = [f"{who} game {number}: {how}, {pts}."]
    e, h = match.score
    if match.length:
        lines.append(f"Score (match to {match.length}): you {h}, engine {e}.")
        if match.crawford_next():
            lines.append("The next game is the Crawford game: no doubling.")
    else:
        lines.append(f"Money play: you {h}, engine {e}.")
    return lines


def final_line(match: MatchScore, stopped: bool) -> str:
    """The session's last word: the match result, or money play's net score."""
    e, h = match.score
    if match.length:
        if h >= match.length:
            return f"You win the match {h}-{e}. Congratulations!"
        if e >= match.length:
            return f"The engine wins the match {e}-{h}."
        return f"Match to {match.length} stopped at you {h}, engine {e}."
    n = match.games
    return (f"Money play{' stopped' if stopped else ''} after {n} game{'s' * (n != 1)}: "
            f"you {h} points, engine {e} points (net {h - e:+d} for you).")


def double_refusal(cube: CubeInfo, side: int) -> str | None:
    """Why seat ``side``, seeing ``cube``, may not double (the cube's rules,
    :meth:`bgengine.decisions.cube.CubeInfo.can_double`), in words; ``None`` when it may."""
    if cube.crawford:
        return "there is no doubling in the Crawford game"
    if cube.owner == "opponent":
        return "the engine owns the cube" if side == HUMAN else "you own the cube"
    if cube.cube >= MAX_CUBE:
        return f"the cube is at its maximum ({cube.cube})"
    return None
