"""Every file the product reads is opened through bgengine.core.fileio.open_regular: a FIFO, a
device (or a link to one), a socket or a folder is refused at once with one line, never
read without end or waited on (issue: FIFOs hung the loaders, a link to /dev/zero read
until the kernel killed the process)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from bgengine.core.fileio import MAX_TEXT_BYTES, NotARegularFile, open_regular, read_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")


def _within(seconds, fn, *args):
    """``fn(*args)``'s exception, failing the test if it has not returned in ``seconds``."""
    box = {}

    def run():
        try:
            fn(*args)
            box["error"] = None
        except BaseException as exc:   # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__qualname__} hung on its input"
    return box["error"]


def _fifo(path):
    os.mkfifo(path)
    return path


def _zero_link(path):
    path.symlink_to("/dev/zero")
    return path


@pytest.fixture
def odd(tmp_path):
    """Paths that are not regular files, by what they are."""
    fifo = _fifo(tmp_path / "fifo.npz")
    zero = _zero_link(tmp_path / "zero.npz")
    folder = tmp_path / "folder.npz"
    folder.mkdir()
    sock_path = tmp_path / "s.npz"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    yield {"a FIFO": fifo, "a character device": zero, "a folder": folder, "a socket": sock_path}
    sock.close()


def test_the_helper_says_what_the_path_is(odd, tmp_path):
    for kind, path in odd.items():
        err = _within(10, read_regular, path)
        assert isinstance(err, NotARegularFile) and str(err) == f"{path}: not a regular file ({kind})"
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    err = _within(10, read_regular, big, "match file", 100)
    assert str(err) == f"{big}: 101 bytes, more than a match file may have (100)"
    assert read_regular(big, max_bytes=101) == b"x" * 101
    with open_regular(big) as f:
        assert f.read(3) == b"xxx"
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing")


def _readers():
    from bgengine.decisions.cube import MatchEquityTable
    from bgengine.core.evaluator import load_evaluator
    from bgengine.labelling.decisions import DecisionSet
    from bgengine.labelling.store import load_pool
    from bgengine.matchfiles.files import read_match_file
    from bgengine.core.network import Network
    from bgengine.matches.players import load_network
    from bgengine.training.run_dir import read_checkpoint
    from bgengine.matchfiles.session_file import load_session
    from bgengine.training.startpositions import load_positions
    from bgengine.training.config import TrainConfig
    return {
        "Network.load": Network.load, "load_evaluator": load_evaluator,
        "load_network": load_network, "load_positions": load_positions,
        "load_pool": load_pool, "DecisionSet.load": DecisionSet.load,
        "MatchEquityTable.load": MatchEquityTable.load,
        "TrainConfig.from_toml": TrainConfig.from_toml,
        "read_match_file": read_match_file, "load_session": load_session,
        "read_checkpoint": lambda p: read_checkpoint(p.parent / "run"),
    }


_MATCH_READERS = ("read_match_file", "load_session")


@pytest.mark.parametrize("reader", sorted(set(_readers()) - set(_MATCH_READERS)))
def test_every_reader_refuses_them_at_once(reader, odd):
    fn = _readers()[reader]
    for kind, path in odd.items():
        if reader == "read_checkpoint":       # the run's checkpoint is a link to the odd file
            run = path.parent / "run"
            run.mkdir(exist_ok=True)
            ck = run / "checkpoint.npz"
            if ck.is_symlink():
                ck.unlink()
            ck.symlink_to(path)
        err = _within(20, fn, path)
        assert isinstance(err, ValueError), (reader, kind, err)
        assert "not a regular file" in str(err) and "\n" not in str(err), (reader, kind, err)


@pytest.mark.parametrize("reader", _MATCH_READERS)
def test_match_readers_refuse_them_at_once(reader, tmp_path):
    fn = _readers()[reader]
    fifo, zero = _fifo(tmp_path / "fifo.mat"), _zero_link(tmp_path / "zero.mat")
    for path, kind in ((fifo, "a FIFO"), (zero, "a character device")):
        err = _within(20, fn, path)
        assert isinstance(err, ValueError) and f"not a regular file ({kind})" in str(err), err


def test_a_gzip_bomb_is_cut_short(tmp_path):
    import gzip

    from bgengine.matchfiles.files import read_match_file
    from bgengine.matchfiles.record import MatchRecordError
    bomb = tmp_path / "bomb.mat.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        block = b" " * (1 << 20)
        for _ in range(MAX_TEXT_BYTES // len(block) + 1):
            f.write(block)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(MatchRecordError, match="inflates to more than"):
        read_match_file(bomb)


@pytest.mark.parametrize("argv", [
    ["eval", "4HPwATDgc/ABMA", "--player", "net:{fifo}"],
    ["matchfile", "check", "{fifo_mat}"],
    ["matchfile", "check", "{zero_mat}"],
    ["play", "--continue", "{fifo_mat}", "--player", "pubeval"],
    ["train", "{run}", "--quiet"],
])
def test_the_commands_say_so_in_one_line(argv, tmp_path):
    from bgengine.training.config import TrainConfig
    fifo, fifo_mat = _fifo(tmp_path / "n.npz"), _fifo(tmp_path / "m.mat")
    zero_mat = _zero_link(tmp_path / "z.mat")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text(TrainConfig().to_toml())
    _zero_link(run / "checkpoint.npz")
    args = [a.format(fifo=fifo, fifo_mat=fifo_mat, zero_mat=zero_mat, run=run) for a in argv]
    p = subprocess.run([sys.executable, "-m", "bgengine", *args], capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a regular file" in lines[0], p.stderr
