"""A deterministic, lexical stand-in for an embedding model (not a real model).

``LexicalEmbedder.embed(text, dims)``:

1. lowercase the text and split it into words (runs of letters/digits, unicode aware);
2. drop a small list of very common English function words (articles, pronouns, auxiliaries,
   a few prepositions). Content-bearing words such as "after", "not" or "before" are kept;
3. signed feature hashing into ``dims`` buckets with a stable hash (blake2b, never Python's
   salted ``hash()``): each word adds weight 1.0, each character trigram of the padded
   word (``"#word#"``) adds 0.25, so words that share stems or fragments land close;
4. L2-normalise.

Identical texts give identical vectors (cosine similarity 1.0). A text with no words left
after step 2 falls back to its stopwords, and a text with no words at all (empty,
punctuation only) maps to the fixed unit vector of the sentinel feature ``"<empty>"``: valid
for every distance function (never zeros, never NaN) and identical for all empty texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from functools import lru_cache
from typing import ClassVar

from langchain_core.embeddings import Embeddings

__all__ = ["STOPWORDS", "LexicalEmbedder", "LexicalEmbeddings"]

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "into",
        "onto",
        "than",
        "then",
        "so",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "very",
        "just",
        "also",
        "too",
    ]
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.25
EMPTY_FEATURE = "<empty>"


@lru_cache(maxsize=65536)
def _bucket(feature: str, dims: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % dims, (1.0 if (value >> 63) & 1 else -1.0)


class LexicalEmbedder:
    """Deterministic lexical embedder; see the module docstring for the exact recipe."""

    def __init__(
        self,
        *,
        word_weight: float = WORD_WEIGHT,
        trigram_weight: float = TRIGRAM_WEIGHT,
        stopwords: frozenset[str] = STOPWORDS,
    ) -> None:
        self.word_weight = word_weight
        self.trigram_weight = trigram_weight
        self.stopwords = stopwords

    def tokens(self, text: str) -> list[str]:
        """The words that contribute features (after lowercasing and stopword removal)."""
        words = _WORD.findall(text.lower())
        content = [w for w in words if w not in self.stopwords]
        return content or words

    def features(self, text: str) -> dict[str, float]:
        """Feature name -> weight, before hashing."""
        feats: dict[str, float] = {}
        words = self.tokens(text)
        if not words:
            return {EMPTY_FEATURE: 1.0}
        for word in words:
            key = "w:" + word
            feats[key] = feats.get(key, 0.0) + self.word_weight
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                tri = "t:" + padded[i : i + 3]
                feats[tri] = feats.get(tri, 0.0) + self.trigram_weight
        return feats

    def embed_raw(self, text: str, dims: int) -> list[float]:
        """The hashed feature vector before normalisation (never all zeros)."""
        if dims < 1:
            raise ValueError("dims must be >= 1")
        vec = [0.0] * dims
        for feature, weight in self.features(text).items():
            index, sign = _bucket(feature, dims)
            vec[index] += sign * weight
        if not any(vec):  # features cancelled out in a tiny space: use the sentinel
            index, sign = _bucket(EMPTY_FEATURE, dims)
            vec[index] = sign
        return vec

    def embed(self, text: str, dims: int) -> list[float]:
        """L2-normalised embedding of ``text`` with ``dims`` dimensions."""
        vec = self.embed_raw(text, dims)
        norm = math.sqrt(sum(v * v for v in vec))
        return [v / norm for v in vec]

    def token_count(self, text: str) -> int:
        """A rough token count (words and punctuation), as Bedrock reports one."""
        return len(re.findall(r"\w+|[^\w\s]", text))


class LexicalEmbeddings(Embeddings):
    """LangChain ``Embeddings`` over :class:`LexicalEmbedder`.

    Pass it where a store takes an embedder, e.g. ``embed=LexicalEmbeddings(dims=256)``.
    """

    # The provider tables pin it by (`model_pin.identify`): its module path before it
    # moved here, kept so that tables pinned to it stay valid.
    PINNED_AS: ClassVar[str] = "langgraph.store.dynamodb.testing.embedder.LexicalEmbeddings"

    def __init__(self, dims: int = 1024, embedder: LexicalEmbedder | None = None) -> None:
        if dims < 1:
            raise ValueError("dims must be >= 1")
        self.dims = dims
        self.embedder = embedder or LexicalEmbedder()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embedder.embed(t, self.dims) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.embed(text, self.dims)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        await asyncio.sleep(0)
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        await asyncio.sleep(0)
        return self.embed_query(text)
