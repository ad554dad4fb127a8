"""Make the derived files of this corpus (``derived_*.mat``) from the real ones; run from
the repository root:

    python tests/data/matfiles/real/make_derived.py

Each is a real file changed in one way only (SOURCES.md says which): a UTF-8 byte-order
mark in front, CRLF line ends, the names in Windows-1252 rather than UTF-8, the file cut
at a line boundary (in the middle of a game; just after a "Game N" line).
"""

from pathlib import Path

HERE = Path(__file__).parent


def cut_after(text: str, marker: str, extra: int) -> str:
    """``text`` up to ``extra`` lines after the line that is ``marker``."""
    lines = text.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.strip() == marker)
    return "".join(lines[:k + 1 + extra])


def main() -> None:
    xg = (HERE / "xg_hsbt_paris_2023_7p.mat").read_bytes()
    gnubg = (HERE / "gnubg_selfplay_drops_7p.mat").read_bytes()
    made = {
        "derived_bom_xg_hsbt_paris_2023_7p.mat": b"\xef\xbb\xbf" + xg,
        "derived_latin1_xg_hsbt_paris_2023_7p.mat": xg.decode("utf-8").encode("cp1252"),
        "derived_crlf_gnubg_selfplay_drops_7p.mat": gnubg.replace(b"\n", b"\r\n"),
        "derived_cut_mid_game_gnubg_selfplay_drops_7p.mat":
            cut_after(gnubg.decode(), "Game 3", 9).encode(),
        "derived_cut_at_game_header_gnubg_selfplay_drops_7p.mat":
            cut_after(gnubg.decode(), "Game 3", 0).encode(),
    }
    for name, data in made.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
