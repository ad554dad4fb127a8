"""Coverage-guided fuzzing of bgengine's input surfaces with atheris (libFuzzer).

    python fuzz/run.py --list                       the targets
    python fuzz/run.py TARGET [libFuzzer args]      one target (e.g. -max_total_time=3600)
    python fuzz/run.py --all --runs 50000           every target in turn; writes record.json
    python fuzz/run.py --seed                       (re)write the seed corpus of every target
    python fuzz/run.py --minimise TARGET            merge the target's corpus into a small one

The targets are ``tests/fuzz_targets.py``'s (plain functions of bytes, replayed without
atheris by ``tests/test_fuzz_corpus.py``).  A run reads ``fuzz/corpus/TARGET/`` and grows a
working corpus in ``fuzz/work/TARGET/`` (not kept); crashes, hangs (``-timeout``) and
running out of memory are written to ``fuzz/crashes/TARGET/``.  See fuzz/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TESTS = ROOT / "tests"
CORPUS = HERE / "corpus"
CRASHES = HERE / "crashes"
WORK = HERE / "work"
RECORD = HERE / "record.json"

#: Per-input time limit (seconds): longer is a hang.
TIMEOUT = 20
#: Longest input the fuzzer makes (bytes); seeds may be longer.
MAX_LEN = 4096

#: The modules the targets exercise: imported under atheris' instrumentation.
MODULES = (
    "bgengine", "bgengine.notation.ids", "bgengine.notation.state_text", "bgengine.state", "bgengine.notation.moves",
    "bgengine.matchfiles.mat", "bgengine.matchfiles.reading", "bgengine.matchfiles.files", "bgengine.matchfiles.record",
    "bgengine.matchfiles.sgf", "bgengine.notation.fibs", "bgengine.opponents.external", "bgengine.protocols.gnubg_socket", "bgengine.protocols.serve",
    "bgengine.protocols.ubgi", "bgengine.training.config", "bgengine.training.run_dir", "bgengine.matchfiles.session_file",
    "bgengine.position", "bgengine.decisions.engine", "bgengine.matches.players", "bgengine.cli",
    "bgengine.cli.options", "bgengine.core.fileio", "bgengine.core.evaluator", "bgengine.protocols.web.api",
    "bgengine.protocols.web.session", "bgengine.protocols.web.steps", "bgengine.protocols.web.limits",
)


def _targets():
    sys.path.insert(0, str(TESTS))
    import fuzz_targets
    return fuzz_targets


# ====================================================================== seeds

def seeds() -> dict[str, list[bytes]]:
    """Real inputs of every target, in the targets' own byte layout."""
    ft = _targets()
    from bgengine.matchfiles.mat import read_mat
    from bgengine.matchfiles.sgf import write_sgf

    data = TESTS / "data" / "matfiles"
    mats = [(data / n).read_bytes() for n in ("gnubg_match1.mat", "gnubg_money.mat")]
    mats += [p.read_bytes() for p in sorted((data / "real").glob("*.mat"))]
    sgfs = [write_sgf(read_mat(m.decode("utf-8-sig"))).encode() for m in mats[:2]]
    sgfs.append(gzip.decompress((data / "gnubg_match1.sgf.gz").read_bytes())[:6000])
    ids = [b"4HPwATDgc/ABMA", b"sGfwATDgc/ABMA", b"jGfkACjg8xgBUA", b"AAAAAAAAAAAAAA"]
    mids = [b"cAkAAAAAAAAA", b"QYkqASAAIAAA", b"MAAAAAAAAAAA", b"cIkWAAAAAAAA"]
    xgids = [b"XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10",
             b"XGID=-b----E-C---eE---c-e----B-:1:1:-1:D:2:4:1:7:10",
             b"-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10"]
    states = ids[:2] + xgids + [b"4HPwATDgc/ABMA:cAkAAAAAAAAA", b"GNUbg ID: 4HPwATDgc/ABMA:QYkqASAAIAAA"]
    board = ft.OPENING_31.encode()
    cube = board.replace(b":1:3:1:0:0:1:1:1:", b":1:0:0:0:0:1:1:1:")
    protocol = [b"\x00" + board + b"\n" + cube, b"\x01" + board, b"\x00version\nhelp\nset debug on\n"
                + board + b" jacobyrule on\nevaluation fibsboard " + board + b" plies 0 cubeful",
                b"\x07127.0.0.1:31000", b"\x00set interface new\nexit"]
    ubgi = [b"ubgi\nisready\nnewgame\nposition gnubgid 4HPwATDgc/ABMA\ndice 3 1\ngo\nquit",
            b"position gnubgid 4HPwATDgc/ABMA:cAkAAAAAAAAA\ngo cube\ngo turn\n",
            b"set engine.ply 1\nget engine.ply\nkeys\nposition xgid "
            + xgids[0] + b"\ngo chequer\nsetoption name game.jacoby value true"]
    web = [b"\x00\x00\x01\x00" + json.dumps({"state": "4HPwATDgc/ABMA", "dice": [3, 1]}).encode(),
           b"\x01\x01\x01\x00" + json.dumps({"state": xgids[0].decode()}).encode(),
           b"\x02\x02\x01\x00" + json.dumps({"state": "4HPwATDgc/ABMA", "dice": [6, 5], "num": 2}).encode(),
           b"\x00\x04\x01\x00" + json.dumps({"length": 3}).encode(),
           b"\x03\x06\x01\x00{}", b"\x00\x03\x01\x00" + json.dumps(
               {"state": "4HPwATDgc/ABMA", "trials": 36, "truncate": 2}).encode()]
    net = ft._valid_network_bytes()
    config = (ROOT / "python" / "bgengine" / "data" / "default_config.toml")
    configs = [ft._VALID_CONFIG] + ([config.read_bytes()[:4000]] if config.exists() else [])
    log = b'{"games": 1000, "ppg": 0.1}\n{"games": 2000, "event": "eval"}\n{"games": 3'
    def cli_seed(command: str, *words: str) -> bytes:
        out = bytes([2, ft._CLI_RUN.index(command), len(words)])
        for w in words:
            out += bytes([0, 0, 0]) if w == "FILE" else bytes([2, ft._CLI_WORDS.index(w)])
        return out

    cli = [cli_seed("show", ft.START_ID), cli_seed("moves", ft.START_ID, "31"),
           cli_seed("hint", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:3:10", "--json"),
           cli_seed("eval", "4HPwATDgc/ABMA:cAkAAAAAAAAA"), cli_seed("matchfile", "check", "FILE"),
           cli_seed("matchfile", "show", "FILE", "--json"), b"\x00\x03\x00"]
    api = [b"\x00\x09\x00", b"\x02\x07" + bytes(50) + b"\x0a\x03\x01\x0a\x03\x01",
           b"\x04\x03\x0e4HPwATDgc/ABMA", b"\x05\x00\x05\x00\x06\x00\x03"]
    return {
        "position_id": ids + [bytes([0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]) * 2],
        "match_id": mids,
        "state_text": states,
        "notation": [b"\x00\x03\x01" + t for t in (b"8/5 6/5", b"24/23 13/10", b"13/10*/9")]
                    + [b"\x03\x06\x05bar/20 13/8", b"\x04\x06\x06" + b"6/off(4)"],
        "matfile": mats,
        "sgf": sgfs,
        "match_file": [b"\x00" + mats[0], b"\x01" + sgfs[0], b"\x06" + mats[1],
                       b"\x03" + gzip.compress(sgfs[0], mtime=0)],
        "session_file": mats[:2] + [mats[0].replace(b"\n", b'\n; [bgengine roll "0 3 1"]\n', 1)],
        "fibs": [board, cube, board.replace(b"board:you:opp:0:0:0", b"board:you:opp:7:2:4")],
        "external": protocol,
        "ubgi": ubgi,
        "web": web,
        "network_file": [b"\x00" + net, b"\x01\x01\x05[4]", b"\x01\x03{}", b"\x03\x02" + bytes(64)],
        "train_config": configs,
        "run_dir": [b"\x00" + log, b"\x03{\"snapshot_games\": []}", b"\x07{\"snapshot_games\": [0]}"],
        "cli": cli,
        "api": api,
    }


def write_seeds(names: list[str]) -> None:
    """Add each target's seeds to its corpus (named by content, so re-seeding is a no-op)."""
    import hashlib

    all_seeds = seeds()
    for name in names:
        folder = CORPUS / name
        folder.mkdir(parents=True, exist_ok=True)
        for s in all_seeds[name]:
            (folder / f"seed-{hashlib.sha1(s).hexdigest()[:16]}").write_bytes(s)


# ====================================================================== one target

def fuzz_one(name: str, libfuzzer_args: list[str]) -> None:
    """Run ``name`` under atheris in this process (libFuzzer exits the process at the end)."""
    import atheris

    import importlib

    # bgengine's editable install loads its modules through its own finder, which
    # instrument_imports() does not see: instrument every loaded function instead
    for module in MODULES:
        importlib.import_module(module)
    fuzz_targets = _targets()
    _instrument(atheris)
    target = fuzz_targets.TARGETS[name]
    (CRASHES / name).mkdir(parents=True, exist_ok=True)
    (WORK / name).mkdir(parents=True, exist_ok=True)
    (CORPUS / name).mkdir(parents=True, exist_ok=True)
    dirs = [a for a in libfuzzer_args if not a.startswith("-")]
    flags = [a for a in libfuzzer_args if a.startswith("-")]
    if not dirs:
        dirs = [str(WORK / name), str(CORPUS / name)]
    defaults = {"-artifact_prefix": f"{CRASHES / name}/", "-timeout": str(TIMEOUT),
                "-max_len": str(MAX_LEN), "-rss_limit_mb": "3072", "-print_final_stats": "1"}
    given = {f.split("=", 1)[0] for f in flags}
    flags += [f"{k}={v}" for k, v in defaults.items() if k not in given]
    target(b"")                                   # fixtures made before the clock runs
    # libFuzzer starts argv[0] again for -merge, -fork and -jobs: this script and the target
    me = shlex.join([sys.executable, str(Path(__file__).resolve()), name])
    atheris.Setup([me, *flags, *dirs], target)
    atheris.Fuzz()


def _instrument(atheris) -> None:
    """Instrument every loaded function of bgengine and the targets (what
    ``atheris.instrument_all()`` does for all code, in a fraction of its time)."""
    import gc
    import types

    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and str(getattr(obj, "__module__", "")).startswith(
                ("bgengine", "fuzz_targets")):
            try:
                atheris.instrument_func(obj)
            except Exception:       # a function atheris cannot rewrite stays as it is
                pass


def minimise(name: str) -> None:
    """Merge the target's corpus and working corpus into a fresh folder of the inputs
    that add coverage (libFuzzer's ``-merge=1``), and keep that as the corpus."""
    fresh = Path(tempfile.mkdtemp(prefix=f"corpus-{name}-"))
    sources = [str(CORPUS / name)] + ([str(WORK / name)] if (WORK / name).exists() else [])
    subprocess.run([sys.executable, __file__, name, "-merge=1", str(fresh), *sources],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not any(fresh.iterdir()):
        shutil.rmtree(fresh)
        raise RuntimeError(f"{name}: the merge kept no input; the corpus is left as it was")
    shutil.rmtree(CORPUS / name)
    shutil.copytree(fresh, CORPUS / name)
    shutil.rmtree(fresh)
    shutil.rmtree(WORK / name, ignore_errors=True)


# ====================================================================== every target

def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_all(names: list[str], runs: int, max_time: int | None) -> int:
    """Each target for ``runs`` inputs (or ``max_time`` seconds) in its own process;
    the figures go to ``record.json`` (one entry per target, the latest run's)."""
    import atheris  # noqa: F401  (fail early if it is missing)
    from importlib.metadata import version

    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    failed = 0
    for name in names:
        before = set((CRASHES / name).glob("*")) if (CRASHES / name).exists() else set()
        args = [sys.executable, __file__, name, f"-runs={runs}"]
        if max_time:
            args.append(f"-max_total_time={max_time}")
        t0 = time.monotonic()
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace")
        seconds = time.monotonic() - t0
        out = proc.stdout
        executed = re.findall(r"stat::number_of_executed_units:\s*(\d+)", out)
        new = sorted(set((CRASHES / name).glob("*")) - before)
        entry = {
            "inputs": int(executed[-1]) if executed else None, "seconds": round(seconds, 1),
            "crashes": len(new), "crash_files": [p.name for p in new],
            "exit_status": proc.returncode,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "cpu": _cpu(), "atheris": version("atheris"), "python": platform.python_version(),
        }
        record[name] = entry
        RECORD.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
        print(f"{name:14} {entry['inputs']} inputs in {seconds:.0f} s, {len(new)} crash(es)",
              flush=True)
        if new or proc.returncode:
            failed += 1
            tail = "\n".join(out.splitlines()[-40:])
            print(tail, flush=True)
        else:
            minimise(name)
    return 1 if failed else 0


def main() -> int:
    if len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        fuzz_one(sys.argv[1], sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the targets")
    parser.add_argument("--all", action="store_true", help="run every target in turn")
    parser.add_argument("--only", nargs="+", metavar="TARGET", help="with --all: these targets")
    parser.add_argument("--runs", type=int, default=50000, help="inputs per target (--all)")
    parser.add_argument("--max-time", type=int, help="seconds per target at most (--all)")
    parser.add_argument("--seed", action="store_true", help="write the seed corpus")
    parser.add_argument("--minimise", nargs="+", metavar="TARGET", help="shrink a corpus")
    args = parser.parse_args()
    names = _targets().target_names()
    if args.list:
        print("\n".join(names))
        return 0
    if args.seed:
        write_seeds(names)
        return 0
    if args.minimise:
        for name in args.minimise:
            minimise(name)
        return 0
    if args.all:
        return run_all(args.only or names, args.runs, args.max_time)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
