"""Write python/bgengine/data/met_kazaross_xg2.json from GNU Backgammon's copy of the table.

The Kazaross-XG2 match equity table (Neil Kazaross, 2011: eXtreme Gammon rollouts to 9 points,
GNU Backgammon Supremo rollouts to 15, extended to 25 by projecting take points; transcribed for
gnubg by Michael Petch) is gnubg's default table.  Its licence permits copying with the notice kept,
which the JSON carries.  Usage::

    python lab/make_met.py [/usr/share/gnubg/met/Kazaross-XG2.xml]
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SRC = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/gnubg/met/Kazaross-XG2.xml")
OUT = Path(__file__).resolve().parents[1] / "python" / "bgengine" / "data" / "met_kazaross_xg2.json"

NOTICE = ("Copyright (C) 2011 Neil Kazaross. Table rolled up to 9 point match by eXtreme Gammon, "
          "then the R/K MET rolled up to 15 and extrapolated to 25 points. Transcribed for GNU "
          "Backgammon by Michael Petch. Copying and distribution of this file, with or without "
          "modification, are permitted in any medium without royalty provided the copyright notice "
          "and this notice are preserved. This file is offered as-is, without any warranty.")


def main() -> None:
    root = ET.parse(SRC).getroot()
    length = int(root.findtext("info/length"))
    pre = [[float(me.text) for me in row.findall("me")]
           for row in root.find("pre-crawford-table").findall("row")]
    post_tables = root.findall("post-crawford-table")
    assert len(post_tables) == 1 and post_tables[0].get("player") == "both", "expected one shared post-Crawford row"
    post = [float(me.text) for me in post_tables[0].find("row").findall("me")]
    assert len(pre) == length and all(len(r) == length for r in pre) and len(post) == length
    doc = {
        "name": root.findtext("info/name"),
        "description": root.findtext("info/description"),
        "source": f"GNU Backgammon 1.07, {SRC.name}",
        "notice": NOTICE,
        "length": length,
        "pre_crawford": pre,      # [i][j]: chance that the side i+1 away beats the side j+1 away
        "post_crawford": post,    # [i]: chance that the side i+1 away beats a 1-away side, post-Crawford
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT} ({length}x{length})")


if __name__ == "__main__":
    main()
