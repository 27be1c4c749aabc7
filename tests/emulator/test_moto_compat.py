"""The emulation refuses a moto whose internals it cannot patch, at import, saying which
moto is installed and which range is supported."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest
from langgraph.store.dynamodb.testing import IncompatibleMotoError
from langgraph.store.dynamodb.testing._moto_compat import check_targets, supported_range
from moto.dynamodb.models import DynamoDBBackend

MOTO = metadata.version("moto")


def test_the_supported_range_is_the_packages_moto_requirement() -> None:
    assert supported_range() == ">=5.2.5,<5.3"


# Each case changes moto as a release might, then imports the emulation afresh; all run in
# one fresh interpreter (importing moto and LangGraph is the slow part).
SCRIPT = """
import importlib, sys
import moto.bedrockruntime.models as bedrock
import moto.dynamodb.models.table as table

def attempt(breakage, undo):
    for name in [m for m in sys.modules if m.startswith("langgraph.store.dynamodb.testing")]:
        del sys.modules[name]
    breakage()
    try:
        importlib.import_module("langgraph.store.dynamodb.testing")
        print("imported")
    except ImportError as error:
        print(type(error).__name__, error)
    finally:
        undo()

put_item, invoke_model = table.Table.put_item, bedrock.BedrockRuntimeBackend.invoke_model
attempt(lambda: delattr(table.Table, "put_item"), lambda: setattr(table.Table, "put_item", put_item))
attempt(
    lambda: delattr(bedrock.BedrockRuntimeBackend, "invoke_model"),
    lambda: setattr(bedrock.BedrockRuntimeBackend, "invoke_model", invoke_model),
)
responses = sys.modules.pop("moto.dynamodb.responses")
attempt(lambda: sys.modules.__setitem__("moto.dynamodb.responses", None),
        lambda: sys.modules.__setitem__("moto.dynamodb.responses", responses))
"""


def test_a_moto_missing_what_the_emulation_patches_fails_at_import() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    problems = [
        "Table.put_item does not exist",
        "BedrockRuntimeBackend.invoke_model does not exist",
        "import of moto.dynamodb.responses halted",
    ]
    assert len(lines) == len(problems), lines
    for line, problem in zip(lines, problems, strict=True):
        assert line.startswith(
            "IncompatibleMotoError langgraph.store.dynamodb.testing cannot emulate on "
            f"moto {MOTO}: "
        ), line
        assert problem in line
        assert "It supports moto>=5.2.5,<5.3; install a supported moto" in line


def test_a_changed_signature_is_refused() -> None:
    class Reshaped:
        def update_item(self, name: str, key: dict[str, str]) -> None: ...

    with pytest.raises(
        IncompatibleMotoError,
        match=r"Reshaped.update_item takes \(self, name, key\), expected "
        r"\(self, table_name, key, \.\.\.\)",
    ):
        check_targets([(Reshaped, "update_item", ("self", "table_name", "key"))])
    check_targets([(DynamoDBBackend, "update_item", ("self", "table_name", "key"))])
