"""The layout's rules, read from the code: each layer imports only the layers its
`__init__` docstring names ("May import: ..."), the library's import graph has no cycle,
and the package's lazy exports name real definitions."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import langgraph.store.dynamodb as package
import pytest

LIBRARY = Path(__file__).resolve().parents[2] / "store"
ROOT_NAME = "langgraph.store.dynamodb"
SAVER_NAME = "langgraph.checkpoint.dynamodb"


def module_name(path: Path) -> str:
    """The import name of a file under store/."""
    parts = list(path.relative_to(LIBRARY).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[:1] == ["checkpoint"]:
        return ".".join([SAVER_NAME, *parts[1:]])
    return ".".join([ROOT_NAME, *parts])


def imported(path: Path) -> Iterator[str]:
    """Every library module `path` imports, at any depth of its code (TYPE_CHECKING and
    function-level imports count as much as top-level ones)."""
    name = module_name(path)
    package_parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package_parts[: len(package_parts) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            if target.startswith((ROOT_NAME + ".", SAVER_NAME)) and target in MODULES:
                yield target


MODULES = {module_name(path): path for path in LIBRARY.rglob("*.py")}


def layer_of(module: str) -> str:
    """`table`, `items`, ... for a layer's module; `checkpoint` for the saver; the
    top-level entry (`cli`, `demo`, `testing`, `agent_server`, ...) otherwise."""
    if module.startswith(SAVER_NAME):
        return "checkpoint"
    rest = module.removeprefix(ROOT_NAME).lstrip(".")
    return rest.split(".")[0] if rest else "__init__"


def allowed_imports() -> dict[str, set[str]]:
    """Layer -> the layers it may import, from each layer's docstring."""
    rules: dict[str, set[str]] = {}
    for init in sorted(LIBRARY.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        found = re.search(r"May import: (.*?)(?:\.\s*$|\.\n)", doc, re.S | re.M)
        if found:
            rules[init.parent.name] = set(re.findall(r"`(\w+)`", found[1]))
    return rules


RULES = allowed_imports()


def test_every_layer_states_what_it_may_import() -> None:
    assert set(RULES) == {
        "table",
        "embedders",
        "items",
        "jobs",
        "memory",
        "stream",
        "checkpoint",
        "extraction",
    }
    assert RULES["table"] == set()
    assert RULES["checkpoint"] == {"table"}


def test_imports_only_point_down() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if layer_of(module) in RULES
        for target in imported(path)
        if layer_of(target) != layer_of(module) and layer_of(target) not in RULES[layer_of(module)]
    ]
    assert wrong == []


def test_the_import_graph_has_no_cycle() -> None:
    graph = {module: set(imported(path)) - {module} for module, path in MODULES.items()}
    done: set[str] = set()

    def visit(module: str, stack: list[str]) -> None:
        if module in stack:
            pytest.fail("import cycle: " + " -> ".join([*stack[stack.index(module) :], module]))
        if module in done:
            return
        for target in sorted(graph[module]):
            # a package's __init__ importing its own modules is how packages work
            if not target.startswith(module + "."):
                visit(target, [*stack, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_lazy_exports_are_the_ones_type_checkers_see() -> None:
    """`EXPORTS` (what loads at run time) and the TYPE_CHECKING imports (what mypy and
    editors see) name the same objects, and each resolves."""
    tree = ast.parse((LIBRARY / "__init__.py").read_text())
    checked = next(node for node in tree.body if isinstance(node, ast.If))
    static = {
        alias.name: (node.module or "").lstrip(".")
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert static == package.EXPORTS
    for name in package.__all__:
        assert getattr(package, name) is not None


@pytest.mark.parametrize("old", sorted(package.MOVED))
def test_paths_users_were_shown_import_the_module_at_its_new_path(old: str) -> None:
    moved = importlib.import_module(f"{ROOT_NAME}.{old}")
    assert moved is importlib.import_module(f"{ROOT_NAME}.{package.MOVED[old]}")
    assert moved.__spec__ is not None
    assert moved.__spec__.name == f"{ROOT_NAME}.{package.MOVED[old]}"


def test_the_checkpointer_has_one_import_path() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{ROOT_NAME}.checkpoint")


LOADED_BY_THE_LIBRARY = """
import json, sys
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder

store = DynamoDBStore(
    "memory", region_name="us-east-1", index={"dims": 8, "embed": embedder("lexical", 8)}
)
saver = DynamoDBSaver("memory", region_name="us-east-1")
print(json.dumps(sorted(sys.modules)))
"""


def test_the_library_never_imports_its_emulation_or_moto() -> None:
    """A store with the lexical embedder and a saver load no `testing` module and no moto:
    the emulation is for tests, never a dependency of the library."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED_BY_THE_LIBRARY],
        capture_output=True,
        text=True,
        check=False,
        env={"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stdout.splitlines() if line.startswith("[")][-1]
    modules = __import__("json").loads(loaded)
    assert [m for m in modules if m.startswith(f"{ROOT_NAME}.testing")] == []
    assert [m for m in modules if m == "moto" or m.startswith("moto.")] == []
    assert f"{ROOT_NAME}.embedders.lexical" in modules
