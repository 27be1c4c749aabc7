"""The `dynamodb-memory` command line (also `python -m langgraph.store.dynamodb`). Its
libraries are the `cli` extra: without them the command prints the line that installs them."""

from __future__ import annotations

import sys

# The distributions of the `cli` extra (pyproject.toml).
EXTRA_MODULES = ("typer", "rich")
INSTALL = "pip install 'langgraph-dynamodb-memory[cli]'"


def main() -> None:
    """Entry point of the console script."""
    try:
        from langgraph.store.dynamodb.cli.app import app
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in EXTRA_MODULES:
            raise
        sys.exit(f"dynamodb-memory needs its command-line extra: {INSTALL}")
    app()


__all__ = ["main"]
