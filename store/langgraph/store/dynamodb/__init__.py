"""Serverless long-term memory for LangGraph agents on one DynamoDB table.

Every public name loads on first use (`EXPORTS`), so importing one layer does not import
the others: the stream Lambda imports `stream.consumer` and never the store, its jobs or
the checkpointer. Module paths that earlier versions showed users (`MOVED`) still import,
as the very module at its new path.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from importlib._abc import Loader  # importlib.abc's Loader, without importlib.resources
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.store.dynamodb.basestore.store import DynamoDBStore as DynamoDBStore
    from langgraph.store.dynamodb.basestore.vector_index import (
        VectorIndexUnsupportedError as VectorIndexUnsupportedError,
    )
    from langgraph.store.dynamodb.embedders.local_embeddings import (
        MiniLMEmbeddings as MiniLMEmbeddings,
    )
    from langgraph.store.dynamodb.extraction.engine.extractor import Extractor as Extractor
    from langgraph.store.dynamodb.iam import tenant_policy as tenant_policy
    from langgraph.store.dynamodb.items.model_pin import ModelMismatchError as ModelMismatchError
    from langgraph.store.dynamodb.jobs.migration import copy_table as copy_table
    from langgraph.store.dynamodb.jobs.purge import Census as Census
    from langgraph.store.dynamodb.jobs.purge import PurgeConflictError as PurgeConflictError
    from langgraph.store.dynamodb.jobs.purge import PurgeResult as PurgeResult
    from langgraph.store.dynamodb.jobs.reindex import ReindexProgress as ReindexProgress
    from langgraph.store.dynamodb.jobs.reindex import ReindexSummary as ReindexSummary
    from langgraph.store.dynamodb.jobs.reindex import reindex as reindex
    from langgraph.store.dynamodb.table.errors import AccessDeniedError as AccessDeniedError
    from langgraph.store.dynamodb.table.errors import NamespaceFullError as NamespaceFullError
    from langgraph.store.dynamodb.table.errors import TableNotFoundError as TableNotFoundError
    from langgraph.store.dynamodb.table.row_sources import RowSource as RowSource
    from langgraph.store.dynamodb.table.usage import UsageLogSink as UsageLogSink

# public name -> the module (below this package) that defines it
EXPORTS = {
    "AccessDeniedError": "table.errors",
    "Census": "jobs.purge",
    "DynamoDBStore": "basestore.store",
    "Extractor": "extraction.engine.extractor",
    "MiniLMEmbeddings": "embedders.local_embeddings",
    "ModelMismatchError": "items.model_pin",
    "NamespaceFullError": "table.errors",
    "PurgeConflictError": "jobs.purge",
    "PurgeResult": "jobs.purge",
    "ReindexProgress": "jobs.reindex",
    "ReindexSummary": "jobs.reindex",
    "RowSource": "table.row_sources",
    "TableNotFoundError": "table.errors",
    "UsageLogSink": "table.usage",
    "VectorIndexUnsupportedError": "basestore.vector_index",
    "copy_table": "jobs.migration",
    "reindex": "jobs.reindex",
    "tenant_policy": "iam",
}
__all__ = sorted(EXPORTS)

# module path users were shown in earlier versions -> where that module is now
MOVED = {
    "bedrock_models": "embedders.bedrock_models",
    "config": "basestore.config",
    "consumer": "stream.consumer",
    "extraction.middleware": "recall.middleware",
    "extraction.recall": "recall.recall",
    "local_embeddings": "embedders.local_embeddings",
    "migration": "jobs.migration",
    "permissions": "table.permissions",
    "table.iam": "iam",
    "table_spec": "table.table_spec",
    "usage": "table.usage",
}


def __getattr__(name: str) -> Any:
    if name not in EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS})


class _MovedModules(Loader):
    """Imports `langgraph.store.dynamodb.<old>` as the module now at its new path (one
    module object under both names, never a second copy): a meta path finder (a
    `find_spec`) and its loader. Its base is the one `importlib.abc.Loader` names, whose
    module would load `importlib.resources` into every import of the package."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.removeprefix(__name__ + ".") not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(
            f"{__name__}.{MOVED[spec.name.removeprefix(__name__ + '.')]}"
        )
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the alias's spec on the module: give it back its own
        module.__spec__ = self._specs.pop(module.__spec__.name if module.__spec__ else "")


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())
