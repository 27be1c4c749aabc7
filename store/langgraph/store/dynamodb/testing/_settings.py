"""Knobs of the emulation and the stack of settings active in this process."""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["EmulatorSettings", "current_settings", "pop_settings", "push_settings"]


@dataclass
class EmulatorSettings:
    """Knobs of the emulation: timings of the emulated vector index, in seconds (all zero
    by default), and one DynamoDB limit.

    * ``index_creation_delay`` - how long a new vector index stays ``CREATING`` before it
      turns ``ACTIVE`` (CreateTable and UpdateTable alike).
    * ``backfill_delay`` - how long an index retrofitted with ``UpdateTable`` onto a table
      that already holds items stays ``ACTIVE`` with ``Backfilling: true`` (searches fail with
      "Cannot search backfilling vector index: <name>"). Not used for inline creation or for
      a retrofit onto an empty table.
    * ``search_lag`` - for this long after an index turns ``ACTIVE`` the search endpoint still
      answers "The table does not have the specified index: <name>" (AWS's lag between the
      control plane and the search endpoint).
    * ``indexing_lag`` - eventual consistency: a write becomes visible to ``SearchVectors``
      this long after it was acknowledged (``GetItem``/``Query`` see it at once).
    * ``index_deletion_delay`` - how long a deleted index is reported as ``DELETING``.
    * ``converse_latency`` - how long the emulated Bedrock ``Converse`` takes to answer
      (model a real model's latency in benchmarks).
    * ``item_collection_size_limit`` - bytes one item collection (the rows sharing a
      partition key value, plus their local secondary index entries) may hold on a table
      with a local secondary index; DynamoDB's is 10 GB. Lower it to reach the limit
      (``ItemCollectionSizeLimitExceededException``) in a test.
    * ``fair_queues`` - SQS standard queues whose messages carry a ``MessageGroupId``
      deliver as fair queues (on by default, as on SQS): a noisy neighbour's messages come
      after the quiet groups' (``_sqs``). Off, the queue delivers in the order it was sent
      (to compare).

    Delays are captured when an index operation starts (so a timeline, once begun, is fixed);
    ``indexing_lag`` is captured per write. Settings are pushed by ``mock_aws(...)`` and
    ``local_endpoint(...)`` for the duration of the context; the object they expose as
    ``.settings`` may be mutated to change the knobs for later operations.
    """

    index_creation_delay: float = 0.0
    backfill_delay: float = 0.0
    search_lag: float = 0.0
    indexing_lag: float = 0.0
    index_deletion_delay: float = 0.0
    converse_latency: float = 0.0
    item_collection_size_limit: int = 10 * 1024**3
    fair_queues: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int | float) or value < 0:
                unit = "bytes" if f.name == "item_collection_size_limit" else "seconds"
                raise ValueError(f"{f.name} must be a non-negative number of {unit}")

    def merged(self, **overrides: Any) -> EmulatorSettings:
        """A copy with the given (non-None) knobs replaced."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


_DEFAULT = EmulatorSettings()
_stack: list[EmulatorSettings] = []
_lock = threading.Lock()


def current_settings() -> EmulatorSettings:
    """The innermost active settings (defaults when no emulation context is active)."""
    with _lock:
        return _stack[-1] if _stack else _DEFAULT


def push_settings(settings: EmulatorSettings) -> None:
    with _lock:
        _stack.append(settings)


def pop_settings(settings: EmulatorSettings) -> None:
    with _lock:
        for i in range(len(_stack) - 1, -1, -1):
            if _stack[i] is settings:
                del _stack[i]
                return
