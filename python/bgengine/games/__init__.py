"""Games other than backgammon, one module each, on the same compiled core and learners:
:mod:`bgengine.games.connect4`."""
