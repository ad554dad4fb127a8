"""The protocols bgengine serves.

- :mod:`~bgengine.protocols.gnubg_socket`: gnubg's external-player protocol (framing and the
  session answering both roles); :mod:`~bgengine.protocols.serve`: its TCP server
- :mod:`~bgengine.protocols.ubgi`: the UBGI engine protocol
- :mod:`~bgengine.protocols.web`: the HTTP API and the browser board
"""
