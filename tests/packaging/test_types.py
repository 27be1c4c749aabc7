"""Type checkers see the real library from a user's file outside the checkout: mypy
resolves both public classes through the development install, never to `Any`. The
install is a plain path entry (the source root, store/), which mypy and IDEs read; an
import hook, which they cannot follow, would make every type `Any`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USERS_FILE = """
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore, copy_table

reveal_type(DynamoDBStore.put)
reveal_type(DynamoDBStore.setup)
reveal_type(DynamoDBSaver.put)
reveal_type(copy_table)
"""


def test_mypy_reveals_real_types_for_the_store_and_the_saver(tmp_path: Path) -> None:
    """From a folder of the user's own, with no configuration of ours: only the install."""
    (tmp_path / "users_file.py").write_text(USERS_FILE)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--python-executable",
            sys.executable,
            "users_file.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    revealed = [line for line in done.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, done.stdout + done.stderr
    assert not [line for line in revealed if line.endswith('"Any"')], revealed
    assert "langgraph.store.dynamodb.basestore.store.DynamoDBStore" in revealed[1]
    assert "langgraph.checkpoint.dynamodb.saver.DynamoDBSaver" in revealed[2]
    assert revealed[3].endswith('"def (client: Any, source: str, target: str) -> int"')


def test_a_plain_editable_install_is_the_source_root_on_the_path(tmp_path: Path) -> None:
    """What `pip install -e .` installs, whatever its flags (the PEP 660 wheel pip asks
    setuptools for): one .pth naming store/, and no import hook module."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools.build_meta as b, sys; b.build_editable(sys.argv[1])",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    [pth] = [name for name in names if name.endswith(".pth")]
    assert zipfile.ZipFile(wheel).read(pth).decode().strip() == str(ROOT / "store")
    assert not [name for name in names if name.endswith(".py")], names
