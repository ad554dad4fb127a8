"""Decisions: what the engine plays, doubles and says.

- :mod:`~bgengine.decisions.engine`: ``Engine``, the decision maker (plays, evaluations, cube,
  resignations, hints)
- :mod:`~bgengine.decisions.hints`: what a hint or an evaluation says of a state, and its wording
- :mod:`~bgengine.decisions.cube`: match equity tables and the cube model
- :mod:`~bgengine.decisions.rollouts`: rollouts of a position or of candidate plays
- :mod:`~bgengine.decisions.luck`: the luck of each roll
- :mod:`~bgengine.decisions.analysis`: a played match analysed
"""
