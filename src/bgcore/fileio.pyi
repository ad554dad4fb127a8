"""Type stub of the compiled module bgengine.fileio (src/bgcore/fileio.pyx)."""

import os
from typing import BinaryIO, Callable

def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], object]) -> None: ...
