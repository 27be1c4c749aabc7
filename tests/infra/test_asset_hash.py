"""Each Lambda's code asset hash (`source_hash`, CDK's custom asset hash) covers only what
that asset ships: a change to one handler, or to a library layer only one of them imports,
redeploys that function alone; a change to a library layer both import redeploys both.
The dependency layer both share (`layer_hash`) changes with the requirements alone: no
edit of the library or of a handler rebuilds or re-uploads it. Checked on a copy of
`lambdas/` and `store/`, edited, as the bundler reads them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from infra import bundling
from infra.bundling import (
    EMBEDDER,
    EXTRACTOR,
    HANDLERS,
    LIBRARY,
    NOT_SHIPPED,
    layer_hash,
    source_hash,
)

from .conftest import Synthesized

ASSETS = {"embedder": EMBEDDER, "extractor": EXTRACTOR}


def hashes() -> dict[str, str]:
    """Each function's code asset hash, and the dependency layer's (`layer`)."""
    return {"layer": layer_hash(), **{name: source_hash(a) for name, a in ASSETS.items()}}


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the repository's `lambdas/` and `store/`, which the bundler reads instead."""
    ignore = shutil.ignore_patterns(*NOT_SHIPPED)
    shutil.copytree(HANDLERS, tmp_path / "lambdas", ignore=ignore)
    shutil.copytree(LIBRARY, tmp_path / "store", ignore=ignore)
    monkeypatch.setattr(bundling, "HANDLERS", tmp_path / "lambdas")
    monkeypatch.setattr(bundling, "LIBRARY", tmp_path / "store")
    return tmp_path


def test_the_two_assets_hash_apart() -> None:
    in_repository = hashes()
    assert len(set(in_repository.values())) == 3


def test_a_copy_of_the_sources_hashes_as_the_repository(sources: Path) -> None:
    with pytest.MonkeyPatch.context() as repository:
        repository.setattr(bundling, "HANDLERS", HANDLERS)
        repository.setattr(bundling, "LIBRARY", LIBRARY)
        in_repository = hashes()
    assert hashes() == in_repository


@pytest.mark.parametrize(
    ("edited", "redeployed"),
    [
        ("lambdas/extractor/handler.py", {"extractor"}),
        ("lambdas/embedder/handler.py", {"embedder"}),
        ("store/langgraph/store/dynamodb/extraction/worker/queue_worker.py", {"extractor"}),
        ("store/langgraph/checkpoint/dynamodb/saver.py", {"extractor"}),
        ("store/langgraph/store/dynamodb/basestore/store.py", {"extractor"}),
        ("store/langgraph/store/dynamodb/stream/consumer.py", {"embedder"}),
        ("store/langgraph/store/dynamodb/table/schema.py", {"embedder", "extractor"}),
        ("store/langgraph/store/dynamodb/handlers/batch.py", {"embedder", "extractor"}),
        ("store/langgraph/store/dynamodb/__init__.py", {"embedder", "extractor"}),
        ("store/langgraph/store/dynamodb/cli/__init__.py", set()),
        ("store/langgraph/store/dynamodb/testing/__init__.py", set()),
        ("lambdas/__init__.py", set()),
    ],
)
def test_an_edit_redeploys_exactly_the_functions_that_ship_it(
    sources: Path, edited: str, redeployed: set[str]
) -> None:
    before = hashes()
    path = sources / edited
    path.write_text(path.read_text() + "\n# edited\n")
    after = hashes()
    assert {name for name in after if after[name] != before[name]} == redeployed


def test_a_change_of_requirements_rebuilds_the_layer_alone(
    sources: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new dependency changes the layer (a new layer version, which both functions then
    use), not the code assets."""
    before = hashes()
    requirements = bundling.runtime_requirements()
    monkeypatch.setattr(bundling, "runtime_requirements", lambda: [*requirements, "six>=1.16"])
    after = hashes()
    assert {name for name in after if after[name] != before[name]} == {"layer"}


def test_a_new_handler_folder_redeploys_neither(sources: Path) -> None:
    before = hashes()
    (sources / "lambdas" / "summarizer").mkdir()
    (sources / "lambdas" / "summarizer" / "handler.py").write_text("def handler(e, c): ...\n")
    assert hashes() == before


def test_each_function_deploys_its_own_asset(synthesized: Synthesized) -> None:
    """Each function runs its own asset's handler from a code asset of its own (CDK keys
    an asset's object by its hash) ..."""
    functions = {
        name: synthesized.one("AWS::Lambda::Function", name.capitalize())["Properties"]
        for name in ASSETS
    }
    assert {name: function["Handler"] for name, function in functions.items()} == {
        name: asset.entry for name, asset in ASSETS.items()
    }
    keys = {function["Code"]["S3Key"] for function in functions.values()}
    assert len(keys) == len(ASSETS)
    # ... and both the one dependency layer, an asset of its own.
    [(layer_id, layer)] = synthesized.resources("AWS::Lambda::LayerVersion").items()
    assert all(function["Layers"] == [{"Ref": layer_id}] for function in functions.values())
    assert layer["Properties"]["Content"]["S3Key"] not in keys
