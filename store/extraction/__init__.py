"""Memories that form themselves: a thread's new messages, read from the checkpointer's
rows, become long-term memories in the store through strategies (what to extract, where
it goes, when to run), off the hot path and exactly once per message.

The seam: `Strategy.extract` turns a `Transcript` into `Candidate`s; a `Consolidator`
decides what each candidate does to the memories already known (`Decision`); the
extractor applies the decisions, advances the thread's cursor and records usage.

May import: `table`, `embedders`, `items`, `jobs`, `memory`, `checkpoint`.
"""

from .candidates import Candidate, Provenance, memory_key
from .config import ExtractionConfig, ExtractionConfigError, TenantOverride
from .consolidation import Add, AddEach, Consolidator, Decision, NoOp
from .errors import ExtractionError, MalformedAnswerError
from .extractor import Extractor, RunReport, StrategyStatus
from .semantic_facts import SemanticFacts
from .strategy import STRATEGIES, Strategy, Trigger, register
from .transcript import Message, Transcript

__all__ = [
    "STRATEGIES",
    "Add",
    "AddEach",
    "Candidate",
    "Consolidator",
    "Decision",
    "ExtractionConfig",
    "ExtractionConfigError",
    "ExtractionError",
    "Extractor",
    "MalformedAnswerError",
    "Message",
    "NoOp",
    "Provenance",
    "RunReport",
    "SemanticFacts",
    "Strategy",
    "StrategyStatus",
    "TenantOverride",
    "Transcript",
    "Trigger",
    "memory_key",
    "register",
]
