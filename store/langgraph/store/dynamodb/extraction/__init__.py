"""Memories that form themselves: a thread's new messages, read from the checkpointer's
rows, become long-term memories in the store through strategies (what to extract, where
it goes, when to run), off the hot path and exactly once per message.

The seam: `Strategy.extract` turns a `Transcript` into `Candidate`s; a `Consolidator`
decides what each candidate does to the memories already known (`Decision`); the
extractor applies the decisions, advances the thread's cursor and records usage.

May import: `table`, `embedders`, `items`, `jobs`, `memory`, `checkpoint`.
"""

from .candidates import Candidate, Provenance, memory_key
from .config import Consolidation, ExtractionConfig, ExtractionConfigError, TenantOverride
from .consolidation import Add, AddEach, Consolidator, Decision, NoOp, Supersede, Update
from .custom import CustomStrategy
from .episodic import EpisodicMemory
from .errors import ExtractionError, MalformedAnswerError
from .extractor import Extractor, RunReport, StrategyStatus
from .nearest import NearestConsolidator
from .preferences import UserPreferences
from .semantic_facts import SemanticFacts
from .strategy import STRATEGIES, Strategy, Trigger, register
from .summary import SessionSummaries
from .transcript import Message, Transcript

__all__ = [
    "STRATEGIES",
    "Add",
    "AddEach",
    "Candidate",
    "Consolidation",
    "Consolidator",
    "CustomStrategy",
    "Decision",
    "EpisodicMemory",
    "ExtractionConfig",
    "ExtractionConfigError",
    "ExtractionError",
    "Extractor",
    "MalformedAnswerError",
    "Message",
    "NearestConsolidator",
    "NoOp",
    "Provenance",
    "RunReport",
    "SemanticFacts",
    "SessionSummaries",
    "Strategy",
    "StrategyStatus",
    "Supersede",
    "TenantOverride",
    "Transcript",
    "Trigger",
    "Update",
    "UserPreferences",
    "memory_key",
    "register",
]
