"""Other programs as opponents.

- :mod:`~bgengine.opponents.gnubg`: GNU Backgammon, a pool of gnubg processes
- :mod:`~bgengine.opponents.ubgi`: any UBGI engine
- :mod:`~bgengine.opponents.external`: a program serving gnubg's external-player protocol
"""
