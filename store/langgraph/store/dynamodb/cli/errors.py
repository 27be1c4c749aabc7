"""User errors as one readable line and an exit code, never a traceback."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from botocore.exceptions import (
    ClientError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
)
from botocore.exceptions import ConnectionError as BotoConnectionError
from rich.console import Console

P = ParamSpec("P")
R = TypeVar("R")

# Exit codes (documented in the README).
NOT_FOUND = 1
BAD_INPUT = 2
ENVIRONMENT = 3
# A confirmation was declined (or went unanswered): nothing was changed.
DECLINED = 4
# The reader of stdout closed it (`| head`): 128 + SIGPIPE, as a shell reports a process
# that SIGPIPE ended.
PIPE_CLOSED = 141

stderr = Console(stderr=True)


class CliError(Exception):
    """An error to show the user as is, with its exit code."""

    def __init__(self, message: str, code: int = BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


class PartlyDone(Exception):
    """A failure after part of the work was done: the message says what was, the cause
    why (and decides the exit code)."""

    def __init__(self, done: str, cause: Exception) -> None:
        super().__init__(done)
        self.cause = cause


def confirm_or_decline(question: str, *, typed: str | None = None) -> None:
    """Ask `question` (yes/no, or, with `typed`, to type that text); anything else, end
    of input or Ctrl-C stops the command with `DECLINED`: nothing was deleted."""
    try:
        if typed is None:
            agreed = typer.confirm(question)
        else:
            agreed = typer.prompt(question, default="", show_default=False) == typed
    except typer.Abort:
        agreed = False
    if not agreed:
        raise CliError("Not confirmed: nothing was deleted.", DECLINED)


def explain(error: BaseException) -> tuple[str, int] | None:
    """The message and exit code for an error the user can fix; None for a bug."""
    # The library's errors, loaded once there is one: the command line starts without it.
    # An error of a module not loaded cannot have been raised: those modules (LangGraph's
    # base loads langchain_core) are not loaded to tell.
    invalid_namespace = _loaded("langgraph.store.base", "InvalidNamespaceError")
    config_error = _loaded("langgraph.store.dynamodb.basestore.config", "ConfigError")
    unsupported = _loaded(
        "langgraph.store.dynamodb.basestore.vector_index", "VectorIndexUnsupportedError"
    )
    from langgraph.store.dynamodb.table.errors import (
        AccessDeniedError,
        KeySchemaError,
        NamespaceFullError,
        TableNotFoundError,
    )

    if isinstance(error, CliError):
        return str(error), error.code
    if isinstance(error, PartlyDone):
        cause = explain(error.cause)
        return None if cause is None else (f"{cause[0]} ({error})", cause[1])
    if isinstance(error, TableNotFoundError):
        return f"{error} Create it with: dynamodb-memory setup", ENVIRONMENT
    if isinstance(error, NoCredentialsError | PartialCredentialsError):
        return (
            "No AWS credentials found. For the local endpoint any will do: export "
            "AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing (serve prints them). "
            "For AWS: pass --profile or configure credentials.",
            ENVIRONMENT,
        )
    if isinstance(error, NoRegionError):
        return "No AWS region: pass --region us-east-1 or set AWS_DEFAULT_REGION.", ENVIRONMENT
    if isinstance(error, ProfileNotFound):
        return f"{error}. Check --profile / AWS_PROFILE.", ENVIRONMENT
    if isinstance(error, BotoConnectionError):  # refused, timed out, DNS, proxy, TLS
        return (
            f"{error}. Is the endpoint running (dynamodb-memory serve)? "
            "Check --endpoint-url / AWS_ENDPOINT_URL.",
            ENVIRONMENT,
        )
    if isinstance(
        error,
        (AccessDeniedError, KeySchemaError, NamespaceFullError, *unsupported),
    ):
        return str(error), ENVIRONMENT
    if isinstance(error, ClientError):
        detail = error.response.get("Error", {})
        return f"AWS error {detail.get('Code')}: {detail.get('Message')}", ENVIRONMENT
    if isinstance(error, config_error):
        return str(error), BAD_INPUT
    if isinstance(error, OSError):
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror or error}{where}", BAD_INPUT
    if isinstance(error, (*invalid_namespace, ValueError, ImportError)):
        return str(error), BAD_INPUT
    return None


def _loaded(module: str, name: str) -> tuple[type[BaseException], ...]:
    """The error class `name` of `module` if that module is loaded, else none."""
    found = sys.modules.get(module)
    return (getattr(found, name),) if found is not None else ()


def friendly(command: Callable[P, R]) -> Callable[P, R]:
    """Run `command`, turning user errors into `Error: ...` on stderr and an exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except typer.Exit:
            raise
        except BrokenPipeError:
            # Stop quietly, as Unix tools do; stdout goes nowhere so exiting cannot fail.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(PIPE_CLOSED) from None
        except Exception as error:
            explained = explain(error)
            if explained is None:
                raise
            message, code = explained
            stderr.print(f"[bold red]Error:[/] {message}", highlight=False, soft_wrap=True)
            raise typer.Exit(code) from None

    return wrapper
