"""The fuzzers' findings as regression tests: every input of ``fuzz/corpus/TARGET/`` (the
minimised corpus, seeded from real inputs) and every crash ever found in
``fuzz/crashes/TARGET/`` is replayed through its target (``tests/fuzz_targets.py``,
without atheris).  A fixed crash must stay fixed; a corpus input that starts failing is a
new defect.  The targets are also shown to catch a planted defect, so that a replay that
passes means something."""

from __future__ import annotations

from pathlib import Path

import pytest

import fuzz_targets
from fuzz_targets import TARGETS

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
#: Targets that need an optional dependency (the web extra).
NEEDS = {"web": "fastapi"}


def _inputs(kind: str) -> list[tuple[str, Path]]:
    return [(name, path) for name in TARGETS
            for path in sorted((FUZZ / kind / name).glob("*")) if path.is_file()]


def _replay(name: str, paths: list[Path]) -> None:
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    target = TARGETS[name]
    for path in paths:
        try:
            target(path.read_bytes())
        except Exception as exc:
            raise AssertionError(f"{path.relative_to(FUZZ)}: {type(exc).__name__}: {exc}") from exc


@pytest.mark.parametrize("name", list(TARGETS))
def test_the_corpus_replays_cleanly(name):
    _replay(name, [p for n, p in _inputs("corpus") if n == name])


@pytest.mark.parametrize("name", sorted({n for n, _ in _inputs("crashes")}) or ["-"])
def test_every_crash_found_stays_fixed(name):
    if name == "-":
        pytest.skip("no crash found yet")
    _replay(name, [p for n, p in _inputs("crashes") if n == name])


def test_every_target_has_a_seed_corpus():
    missing = [name for name in TARGETS if not any((FUZZ / "corpus" / name).glob("*"))]
    assert not missing, f"targets without a corpus (python fuzz/run.py --seed): {missing}"
    unknown = [p.name for kind in ("corpus", "crashes") if (FUZZ / kind).exists()
               for p in (FUZZ / kind).iterdir() if p.name not in TARGETS]
    assert not unknown, f"corpus folders of no target: {unknown}"


def _first_input(name: str) -> bytes:
    """A real input of ``name``'s (the ``.mat`` target's: a file gnubg wrote)."""
    if name == "matfile":
        return (Path(__file__).resolve().parent / "data" / "matfiles" / "gnubg_match1.mat").read_bytes()
    return sorted((FUZZ / "corpus" / name).glob("*"))[0].read_bytes()


# ---------------------------------------------------------------- planted defects

def _raises_key_error(*args, **kwargs):
    raise KeyError("planted")


def test_a_protocol_internal_error_fails_the_target(monkeypatch):
    """The protocol answers any exception with an internal-error line: the target must
    call that a defect, as it must an error logged behind a polite reply."""
    import bgengine.protocols.gnubg_socket

    monkeypatch.setattr(bgengine.protocols.gnubg_socket.Session, "_dispatch", _raises_key_error)
    with pytest.raises(AssertionError):
        fuzz_targets.external(b"\x00version\n")


def test_a_ubgi_internal_error_fails_the_target(monkeypatch):
    import bgengine.protocols.ubgi

    monkeypatch.setattr(bgengine.protocols.ubgi.UbgiSession, "_dispatch", _raises_key_error)
    with pytest.raises(AssertionError):
        fuzz_targets.ubgi(b"isready\n")


def test_an_undocumented_exception_gets_through(monkeypatch):
    import bgengine.notation.ids
    import bgengine.matchfiles.mat

    monkeypatch.setattr(bgengine.matchfiles.mat, "read_mat", _raises_key_error)
    with pytest.raises(KeyError):
        fuzz_targets.matfile(_first_input("matfile"))
    monkeypatch.setattr(bgengine.notation.ids, "board_from_position_id", _raises_key_error)
    with pytest.raises(KeyError):
        fuzz_targets.position_id(b"4HPwATDgc/ABMA")


def test_a_broken_round_trip_fails_the_target(monkeypatch):
    """A writer that loses a game, an encoder that writes another ID: silently wrong
    results the targets must see."""
    import bgengine.notation.ids
    import bgengine.matchfiles.mat

    other = (Path(__file__).resolve().parent / "data" / "matfiles" / "gnubg_match3.mat").read_text()
    monkeypatch.setattr(bgengine.matchfiles.mat, "write_mat", lambda m: other)   # another match
    with pytest.raises(AssertionError):
        fuzz_targets.matfile(_first_input("matfile"))
    monkeypatch.setattr(bgengine.notation.ids, "position_id", lambda board: "AAAAAAAAAAAAAA")
    with pytest.raises(AssertionError):
        fuzz_targets.position_id(b"4HPwATDgc/ABMA")


def test_a_cli_traceback_fails_the_target(monkeypatch):
    """A command whose handler raises what main does not turn into a message."""
    import argparse

    import bgengine.cli.position

    parser = fuzz_targets._cli_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    monkeypatch.setattr(sub.choices["show"], "_defaults",
                        {**sub.choices["show"]._defaults, "func": _raises_key_error})
    assert bgengine.cli.position        # the command's module is loaded
    with pytest.raises(KeyError):
        # "bgengine show START" in the targets' layout
        fuzz_targets.cli(bytes([2, 0, 1, 2, fuzz_targets._CLI_WORDS.index(fuzz_targets.START_ID)]))


def test_a_web_500_fails_the_target(monkeypatch):
    pytest.importorskip("fastapi")
    import bgengine.state

    monkeypatch.setattr(bgengine.state.GameState, "from_string", classmethod(_raises_key_error))
    body = b'{"state": "4HPwATDgc/ABMA", "dice": [3, 1]}'
    with pytest.raises(AssertionError):
        fuzz_targets.web(bytes([0, 0, 1, 0]) + body)


def test_the_record_covers_every_target_and_the_docs_show_it():
    """``fuzz/record.json`` holds a clean run of at least 50,000 inputs for every target, and
    the table in docs/reference/fuzzing.md shows the same figures."""
    import json

    record = json.loads((FUZZ / "record.json").read_text())
    assert sorted(record) == sorted(TARGETS)
    for name, run in record.items():
        assert run["inputs"] >= 50_000 and run["crashes"] == 0 and run["exit_status"] == 0, name
    docs = (FUZZ.parent / "docs" / "reference" / "fuzzing.md").read_text()
    for name, run in record.items():
        assert f"| `{name}` | {run['inputs']:,} | {run['seconds']:.0f} |" in docs, name
