"""``bgengine bench`` and bgengine.speed: the machine's figures (not their values: timings)."""

from __future__ import annotations

import json

from bgengine.cli import main
from bgengine.core.network import available_kernels, kernel
from bgengine.speed import cpu_model


def test_cpu_model_names_something():
    assert cpu_model().strip()


def test_bench_command(capsys):
    before = kernel()
    assert main(["bench", "--trials", "36", "--label-positions", "1", "--threads", "2",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["kernel"] == kernel() == before and tuple(r["kernels"]) == available_kernels()
    assert r["threads"] == 2 and r["label_trials"] == 648 and r["cpu"] == cpu_model()
    for name in ("evaluations_per_second", "rollout_trials_per_second",
                 "rollout_trials_per_second_threads", "labelled_per_core_hour"):
        assert r[name] > 0
    assert main(["bench", "--trials", "36", "--label-positions", "1", "--kernel", "c"]) == 0
    out = capsys.readouterr().out
    assert "network kernel: c (this CPU runs" in out and "per core-hour" in out
    assert kernel() == before                   # the process's kernel is given back


def test_bench_refuses_bad_values(capsys):
    assert main(["bench", "--trials", "10"]) == 2
    assert "36..10**6" in capsys.readouterr().err
