"""Match records and the files they are kept in.

- :mod:`~bgengine.matchfiles.record`: a played match as a record (``MatchRecord``) and its replay
- :mod:`~bgengine.matchfiles.mat`, :mod:`~bgengine.matchfiles.sgf`: the ``.mat`` and ``.sgf`` formats
- :mod:`~bgengine.matchfiles.reading`: what reading a file adds (the dice alone, where a record stops short)
- :mod:`~bgengine.matchfiles.files`: files on disk in either format, gzipped or not
- :mod:`~bgengine.matchfiles.session_file`: a session's match saved as it goes

The package re-exports the names of :mod:`~bgengine.matchfiles.files`
(``from bgengine.matchfiles import read_match_file``).
"""

from __future__ import annotations

from bgengine._lazy import lazy_exports

#: public name -> the module that defines it (imported on first use)
_EXPORTS = {
    "FORMATS": "bgengine.matchfiles.files",
    "file_format": "bgengine.matchfiles.files",
    "decode_text": "bgengine.matchfiles.files",
    "read_match_file": "bgengine.matchfiles.files",
    "write_match_file": "bgengine.matchfiles.files",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
