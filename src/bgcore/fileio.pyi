"""Type stub of the compiled module bgengine.core.fileio (src/bgcore/fileio.pyx)."""

import os
from typing import BinaryIO, Callable

__all__ = ["atomic_write", "open_regular", "read_regular", "NotARegularFile", "MAX_FILE_BYTES",
           "MAX_TEXT_BYTES"]

def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], object]) -> None: ...

MAX_FILE_BYTES: int
MAX_TEXT_BYTES: int

class NotARegularFile(ValueError): ...

def open_regular(path: str | os.PathLike[str], what: str = "file",
                 max_bytes: int = ...) -> BinaryIO: ...
def read_regular(path: str | os.PathLike[str], what: str = "file",
                 max_bytes: int = ...) -> bytes: ...
