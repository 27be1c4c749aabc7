"""The `dynamodb-memory` command line (also `python -m langgraph.store.dynamodb`)."""

from .app import app


def main() -> None:
    """Entry point of the console script."""
    app()


__all__ = ["app", "main"]
