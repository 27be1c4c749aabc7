"""The layout's rules, read from the code: each layer imports only the layers its
`__init__` docstring names ("May import: ..."), the library's import graph has no cycle,
and the package's lazy exports name real definitions."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import langgraph.store.dynamodb as package
import pytest

# The source root: a file's path under it spells its import name.
LIBRARY = Path(__file__).resolve().parents[2] / "store"
ROOT_NAME = "langgraph.store.dynamodb"
SAVER_NAME = "langgraph.checkpoint.dynamodb"


def module_name(path: Path) -> str:
    """The import name of a file under the source root: its path, nothing else."""
    parts = list(path.relative_to(LIBRARY).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


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
            if target in MODULES:
                yield target


MODULES = {module_name(path): path for path in LIBRARY.rglob("*.py")}


def layer_name(named: str) -> str:
    """A layer as a docstring names it: `items` is `langgraph.store.dynamodb.items`,
    `extraction.engine` its subpackage; a full import name is itself."""
    return named if named.startswith("langgraph.") else f"{ROOT_NAME}.{named}"


def allowed_imports() -> dict[str, set[str]]:
    """Layer (a package whose docstring says "May import: ...") -> the layers it may import."""
    rules: dict[str, set[str]] = {}
    for init in sorted(LIBRARY.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        found = re.search(r"May import: (.*?)(?:\.\s*$|\.\n)", doc, re.S | re.M)
        if found:
            rules[module_name(init)] = {layer_name(n) for n in re.findall(r"`([\w.]+)`", found[1])}
    return rules


RULES = allowed_imports()


def layer_of(module: str) -> str:
    """The innermost layer holding `module`; a module of the store's package outside every
    layer (`cli`, `demo`, `testing`, `agent_server`, ...) is an entry point of its own."""
    holding = [layer for layer in RULES if module == layer or module.startswith(layer + ".")]
    if holding:
        return max(holding, key=len)
    rest = module.removeprefix(ROOT_NAME).lstrip(".")
    return f"{ROOT_NAME}.{rest.split('.')[0]}" if rest else ROOT_NAME


def test_the_folder_tree_is_the_import_tree() -> None:
    """Every module's path under the source root is its import name: no package is
    mapped elsewhere, and nothing of ours sits outside the two packages."""
    for name in MODULES:
        assert name.startswith((ROOT_NAME, SAVER_NAME)), name
        module = importlib.util.find_spec(name)
        assert module is not None and module.origin is not None, name
        assert Path(module.origin).resolve() == MODULES[name].resolve(), name
    assert not (LIBRARY / "langgraph" / "__init__.py").exists()
    assert not (LIBRARY / "langgraph" / "store" / "__init__.py").exists()
    assert not (LIBRARY / "langgraph" / "checkpoint" / "__init__.py").exists()


def test_every_layer_states_what_it_may_import() -> None:
    short = {layer.removeprefix(ROOT_NAME + "."): rule for layer, rule in RULES.items()}
    assert set(short) == {
        "table",
        "embedders",
        "items",
        "jobs",
        "basestore",
        "handlers",
        "stream",
        SAVER_NAME,
        "recall",
        "extraction",
        "extraction.strategies",
        "extraction.consolidation",
        "extraction.engine",
        "extraction.worker",
    }
    assert short["table"] == set()
    assert short[SAVER_NAME] == {f"{ROOT_NAME}.table"}
    # an agent that recalls loads nothing of extraction
    assert all("extraction" not in layer for layer in short["recall"])
    assert all(layer in MODULES for rule in RULES.values() for layer in rule)


def test_imports_only_point_down() -> None:
    wrong = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if layer_of(module) in RULES
        for target in imported(path)
        if layer_of(target) != layer_of(module)
        and layer_of(target) not in RULES[layer_of(module)]
        # a package's __init__ re-exporting its own subpackages is how packages work
        and not (path.name == "__init__.py" and target.startswith(module + "."))
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
    tree = ast.parse(MODULES[ROOT_NAME].read_text())
    checked = next(node for node in tree.body if isinstance(node, ast.If))
    static = {
        alias.name: (node.module or "").removeprefix(ROOT_NAME + ".")
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
    saver = importlib.import_module(SAVER_NAME)
    assert saver.__file__ is not None
    assert Path(saver.__file__).resolve() == LIBRARY / "langgraph/checkpoint/dynamodb/__init__.py"


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
