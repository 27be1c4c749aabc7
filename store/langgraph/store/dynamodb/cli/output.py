"""What every command prints: JSON lines with --json, else Rich on the console."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from langgraph.store.dynamodb.cli.target import Target

console = Console(highlight=False)


def print_json(data: Any) -> None:
    """`data` as one line of JSON on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def done(target: Target, data: Any, message: str) -> None:
    """Report a finished command: `data` as JSON with --json, else a check mark and
    `message`."""
    if target.json:
        print_json(data)
    else:
        console.print(f"[green]✓[/] {message}")


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` things in words: "1 memory", "2 memories" (`many` defaults to `one` + "s")."""
    return f"{n} {one if n == 1 else many or one + 's'}"
