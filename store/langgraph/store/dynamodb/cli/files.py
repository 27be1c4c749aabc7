"""Files the command line writes whole or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def temp_sibling(path: Path) -> IO[str]:
    """A new hidden temp file in `path`'s directory (where a rename over `path` is atomic);
    raises `OSError` naming `path` when the directory does not take one."""
    try:
        return tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
        )
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(path)) from None


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[IO[str]]:
    """A text file that replaces `path` when the block succeeds: written to a temp sibling,
    flushed to disk (fsync), renamed over `path`, then the directory synced. A crash leaves
    the old file or the new one, never a mix; a failure leaves `path` as it was and no
    temp file."""
    with temp_sibling(path) as out:
        try:
            yield out
            out.flush()
            os.fsync(out.fileno())
            out.close()
            os.replace(out.name, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(out.name)
            raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
