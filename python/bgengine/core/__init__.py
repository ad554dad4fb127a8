"""The compiled core (Cython, from ``src/bgcore/``): rules, dice, move generation, encoders,
networks, evaluators, search, rollouts, compiled players and self-play.

Each module's Python API is typed by the ``.pyi`` stub beside it; its C-level API is the
``.pxd`` beside it, installed with the package, so other Cython code can
``from bgengine.core.movegen cimport ...`` (see ``docs/reference/modules.md``).

- :mod:`~bgengine.core.board`, :mod:`~bgengine.core.dice`: validation, pips, results; PCG32 dice
- :mod:`~bgengine.core.movegen`: legal afterstates, deduplicated
- :mod:`~bgengine.core.encoders`: input encodings of positions
- :mod:`~bgengine.core.network`: ``Network`` and its SIMD kernels
- :mod:`~bgengine.core.evaluator`: ``Evaluator``, a network per position class and exact bear-offs
- :mod:`~bgengine.core.bearoff`, :mod:`~bgengine.core.racegammon`: bear-off databases; race values
- :mod:`~bgengine.core.search`: ``Searcher`` (0-3 ply) and ``rollout``
- :mod:`~bgengine.core.agents`, :mod:`~bgengine.core.td`: compiled players and matches; self-play training
- :mod:`~bgengine.core.fileio`: crash-safe file writes, regular files only
- :mod:`~bgengine.core.tictactoe`, :mod:`~bgengine.core.connect4`,
  :mod:`~bgengine.core.connect4_solver`, :mod:`~bgengine.core.connect4_players`,
  :mod:`~bgengine.core.smalllearners`: the small games
"""
