"""Games, matches and tournaments between players.

- :mod:`~bgengine.matches.players`: player specs (``make_player("net@0.1")``)
- :mod:`~bgengine.matches.game`: the one Python game loop (cubeless and cube games, Crawford, Jacoby)
- :mod:`~bgengine.matches.run`: matches between two players with confidence intervals
- :mod:`~bgengine.matches.results`: ``MatchResult``, ``CubeMatchResult``, ``summarize``
- :mod:`~bgengine.matches.tournament`: round robins, knock-outs, a run against its older selves
- :mod:`~bgengine.matches.distributed`: where the games run (``LocalBackend``, ``RayBackend``)
- :mod:`~bgengine.matches.demo`: one game printed move by move
"""
