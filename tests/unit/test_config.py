"""Settings from a config file, the environment and the CLI: a wrongly typed or out of
range setting is a `ConfigError` naming it, never a bare TypeError or a silent default
(issue 21)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.dynamodb.basestore.config import ConfigError, StoreSettings, load_settings


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"ttl": 5}, "ttl"),
        ({"ttl": {"default_ttl": "soon"}}, "default_ttl"),
        ({"ttl": {"default_ttl": 0}}, "default_ttl"),
        ({"ttl": {"default_tll": 5}}, "default_tll"),
        ({"index": [1]}, "index"),
        ({"index": {"dims": "abc"}}, "dims"),
        ({"index": {"dims": 0}}, "dims"),
        ({"index": {"dims": 1024.0}}, "dims"),
        ({"index": {"fields": 5}}, "fields"),
        ({"index": {"fields": ["text", 3]}}, "fields"),
        ({"index": {"embed": ["lexical"]}}, "embed"),
        ({"region": 5}, "region"),
        ({"table": None}, "table"),
        ({"endpoint_url": {"url": "x"}}, "endpoint_url"),
    ],
)
def test_a_wrongly_typed_setting_in_a_file_is_named(
    tmp_path: Path, settings: dict[str, Any], says: str
) -> None:
    config = tmp_path / "memory.json"
    config.write_text(json.dumps(settings))
    with pytest.raises(ConfigError, match=rf"{config}.*\b{says}\b"):
        load_settings(config)


def test_a_config_file_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    for config, text in [
        (tmp_path / "deep.json", '{"index": ' + "[" * 100_000),
        (tmp_path / "deep.toml", "a = " + "[" * 100_000),
    ]:
        config.write_text(text)
        with pytest.raises(ConfigError, match=str(config)):
            load_settings(config)


@pytest.mark.parametrize(("variable", "value"), [("DIMS", "0"), ("DEFAULT_TTL", "0")])
def test_a_zero_from_the_environment_is_refused_not_ignored(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(f"DYNAMODB_MEMORY_{variable}", value)
    with pytest.raises(ConfigError, match=f"DYNAMODB_MEMORY_{variable}"):
        load_settings()


@pytest.mark.parametrize("dims", [0, -1, 4097])
def test_dims_out_of_range_is_refused_wherever_it_comes_from(dims: int) -> None:
    with pytest.raises(ConfigError, match=r"dims.*--dims"):
        StoreSettings().with_overrides(embed="lexical", dims=dims)
