"""The distribution: what the wheel installs, and that a user's own `store.py` is harmless."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

USER_SCRIPT = textwrap.dedent(
    """
    import importlib
    import pathlib

    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.dynamodb import DynamoDBStore
    from langgraph.store.dynamodb.testing import mock_aws
    from langgraph.store.memory import InMemoryStore

    import lambdas.handler

    # The top-level name the library once took resolves to the user's file beside us.
    users_module = importlib.import_module("store")
    assert pathlib.Path(users_module.__file__).parent == pathlib.Path(__file__).parent

    with mock_aws():
        memory = DynamoDBStore("memory", region_name="us-east-1")
        memory.setup()
        memory.put(("users", "a"), "k", {"v": users_module.VALUE})
        threads = DynamoDBSaver("memory", region_name="us-east-1")
        assert threads.get_tuple({"configurable": {"thread_id": "t"}}) is None
        print(memory.get(("users", "a"), "k").value["v"], lambdas.handler.NAME,
              InMemoryStore.__name__)
    """
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # setuptools builds in the source tree's build/: one build at a time across workers.
    lock = tmp_path_factory.getbasetemp().parent / "wheel-build.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        _build(out)
    (built,) = out.glob("langgraph_dynamodb_memory-*.whl")
    return built


def _build(out: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )


def _user_project(tmp_path: Path) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "store.py").write_text("VALUE = 'mine'\n")
    (tmp_path / "lambdas").mkdir()
    (tmp_path / "lambdas" / "__init__.py").write_text("")
    (tmp_path / "lambdas" / "handler.py").write_text("NAME = 'my-handler'\n")
    (tmp_path / "app.py").write_text(USER_SCRIPT)
    return tmp_path


def test_the_wheel_installs_only_the_store_and_the_checkpointer(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top == {"langgraph"}
    packages = {name.rsplit("/", 1)[0] for name in names if name.endswith(".py")}
    # every package under the source root ships at its path there, and nothing else
    library = ROOT / "store"
    assert packages == {
        init.parent.relative_to(library).as_posix() for init in library.rglob("__init__.py")
    }
    assert "langgraph/store/dynamodb/checkpoint" not in packages
    assert "langgraph/store/dynamodb/py.typed" in names
    assert "langgraph/checkpoint/dynamodb/py.typed" in names
    # langgraph/, langgraph/store/ and langgraph/checkpoint/ stay namespace packages shared
    # with langgraph itself
    shared = ("langgraph/__init__.py", "langgraph/store/__init__.py")
    assert not {*shared, "langgraph/checkpoint/__init__.py"} & set(names)


def test_the_built_wheel_works_beside_a_users_store_py(wheel: Path, tmp_path: Path) -> None:
    # A fresh environment holding the wheel; its dependencies come from this venv's
    # site-packages through a path entry (not a site dir: this project's editable
    # install, activated by a .pth file there, stays out).
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(env), "platbase": str(env)}))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    project = _user_project(tmp_path / "project")
    done = subprocess.run(
        [str(env / "bin" / "python"), "app.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mine", "my-handler", "InMemoryStore"]
    located = subprocess.run(
        [
            str(env / "bin" / "python"),
            "-c",
            "import langgraph.store.dynamodb as m; print(m.__file__)",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert located.stdout.startswith(str(site))


def test_the_development_install_works_beside_a_users_store_py(tmp_path: Path) -> None:
    project = _user_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "app.py"], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mine", "my-handler", "InMemoryStore"]
