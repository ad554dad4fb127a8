"""A UBGI engine for the client's tests: bgengine's own session (pubeval), answering ``go``
as the mode given says, and writing every line it receives to a log file.

Usage: python fake_ubgi_engine.py MODE LOG
"""

from __future__ import annotations

import sys

from bgengine.protocols.ubgi import UbgiSession

#: What each mode answers to ``go`` instead of the session's reply (None: exit at once).
GO_REPLIES = {
    "honest": "", "illegal": "bestmove 24/1", "pass": "bestmove pass", "empty": "bestmove",
    "error": "error bad_state nope", "cube": "bestcube double", "silent": "", "exit": None,
}


def main() -> None:
    mode, log_path = sys.argv[1], sys.argv[2]
    session = UbgiSession("pubeval")
    with open(log_path, "a") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            words = line.split()
            if mode == "refuse-set" and words[:1] == ["set"]:
                replies = ["error unsupported key"]
            elif words[:1] == ["go"] and mode != "honest":
                if GO_REPLIES[mode] is None:
                    return
                replies = [GO_REPLIES[mode]] if GO_REPLIES[mode] else []
            else:
                replies = session.handle(line.strip())
            for reply in replies:
                print(reply, flush=True)
            if session.closed:
                return


if __name__ == "__main__":
    main()
