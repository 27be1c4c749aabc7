"""Memories that form themselves: a thread's new messages, read from the checkpointer's
rows, become long-term memories in the store through strategies (what to extract, where
it goes, when to run), off the hot path and exactly once per message.

The seam: `Strategy.extract` turns a `Transcript` into `Candidate`s; a `Consolidator`
decides what each candidate does to the memories already known (`Decision`); the
extractor applies the decisions, advances the thread's cursor and records usage.

Its parts are subpackages, each stating what it may import: `strategies` (the seam and
the strategies), `consolidation`, `engine` and `worker` (the Lambda's logic). The read
side, recall, is a layer of its own below this one.

May import: `table`, `embedders`, `items`, `jobs`, `basestore`, `handlers`,
`langgraph.checkpoint.dynamodb`, `recall`.
"""

from langgraph.store.dynamodb.extraction.consolidation.decisions import (
    Add,
    AddEach,
    Consolidator,
    Decision,
    NoOp,
    Supersede,
    Update,
)
from langgraph.store.dynamodb.extraction.consolidation.nearest import NearestConsolidator
from langgraph.store.dynamodb.extraction.engine.config import (
    Consolidation,
    ExtractionConfig,
    ExtractionConfigError,
    TenantOverride,
)
from langgraph.store.dynamodb.extraction.engine.extractor import (
    Extractor,
    RunReport,
    StrategyStatus,
)
from langgraph.store.dynamodb.extraction.strategies.candidates import (
    Candidate,
    Provenance,
    memory_key,
)
from langgraph.store.dynamodb.extraction.strategies.custom import CustomStrategy
from langgraph.store.dynamodb.extraction.strategies.episodic import EpisodicMemory
from langgraph.store.dynamodb.extraction.strategies.errors import (
    ExtractionError,
    MalformedAnswerError,
    ThreadBusyError,
)
from langgraph.store.dynamodb.extraction.strategies.preferences import UserPreferences
from langgraph.store.dynamodb.extraction.strategies.semantic_facts import SemanticFacts
from langgraph.store.dynamodb.extraction.strategies.strategy import (
    STRATEGIES,
    Strategy,
    Trigger,
    register,
)
from langgraph.store.dynamodb.extraction.strategies.summary import SessionSummaries
from langgraph.store.dynamodb.extraction.strategies.transcript import Message, Transcript

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
    "ThreadBusyError",
    "Transcript",
    "Trigger",
    "Update",
    "UserPreferences",
    "memory_key",
    "register",
]
