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


def _import_the_emulation_after(breakage: str) -> str:
    """Import the emulation in a fresh interpreter after `breakage` changed moto; returns
    the error it raised."""
    script = f"{breakage}\nimport langgraph.store.dynamodb.testing\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode != 0, "the emulation imported on a moto it cannot patch"
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("breakage", "problem"),
    [
        (
            "from moto.dynamodb.models.table import Table\ndel Table.put_item",
            "Table.put_item does not exist",
        ),
        (
            "import moto.bedrockruntime.models as m\ndel m.BedrockRuntimeBackend.invoke_model",
            "BedrockRuntimeBackend.invoke_model does not exist",
        ),
        (
            "import sys\nsys.modules['moto.dynamodb.responses'] = None",
            "import of moto.dynamodb.responses halted",
        ),
    ],
    ids=["patched-method-gone", "bedrock-method-gone", "module-gone"],
)
def test_a_moto_missing_what_the_emulation_patches_fails_at_import(
    breakage: str, problem: str
) -> None:
    error = _import_the_emulation_after(breakage)
    assert error.startswith(
        "langgraph.store.dynamodb.testing._moto_compat.IncompatibleMotoError: "
        f"langgraph.store.dynamodb.testing cannot emulate on moto {MOTO}: "
    )
    assert problem in error
    assert "It supports moto>=5.2.5,<5.3; install a supported moto" in error


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
