"""Each extra declares what its entry point imports: every third-party module a module of
the library loads when imported is provided by a distribution the library requires, or
by the extra whose entry point the module belongs to (a module of no entry point: the
plain install alone). Read from the code (the modules' syntax trees) and the installed
metadata (`importlib.metadata`), so a new import or a dropped requirement fails here.

What a module loads: its imports at module level (`if TYPE_CHECKING:` loads nothing), and
those of every library module they load, with its parent packages, transitively. An
import inside a function is a lazy path that says which extra it needs when it runs
(`dynamodb-memory` without `cli` prints the install line, `serve` runs on `testing`, the
local model on `local-embeddings`)."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

DISTRIBUTION = "langgraph-dynamodb-memory"
LIBRARY = Path(__file__).resolve().parents[2] / "store"
OURS = ("langgraph.store.dynamodb", "langgraph.checkpoint.dynamodb")
# extra -> the library modules (and packages, with everything under them) that are its
# entry point.
ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    # the inspector, under the command line's package (listed first: the first entry holding
    # a module is its extra)
    "ui": ("langgraph.store.dynamodb.cli.ui",),
    "cli": ("langgraph.store.dynamodb.cli", "langgraph.store.dynamodb.__main__"),
    "testing": ("langgraph.store.dynamodb.testing", "langgraph.store.dynamodb.pytest_plugin"),
    "agents": ("langgraph.store.dynamodb.recall.middleware",),
    "demo": ("langgraph.store.dynamodb.demo",),
    "agent-server": ("langgraph.store.dynamodb.agent_server",),
    # What the two Lambdas' handlers (lambdas/, outside the wheel) run.
    "lambda": (
        "langgraph.store.dynamodb.handlers",
        "langgraph.store.dynamodb.stream",
        "langgraph.store.dynamodb.extraction.worker",
    ),
}

# Modules only a program that loads them runs, which may import that program: pytest loads
# the plugins (the `pytest11` entry point), so pytest is there.
HOSTED: dict[str, set[str]] = {
    "langgraph.store.dynamodb.testing.pytest_plugin": {"pytest"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(LIBRARY).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in LIBRARY.rglob("*.py")}


def extra_of(module: str) -> str | None:
    """The extra whose entry point holds `module` (None: the plain install's)."""
    for extra, entries in ENTRY_POINTS.items():
        if any(module == entry or module.startswith(entry + ".") for entry in entries):
            return extra
    return None


def top_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements run when the module is imported."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))


@cache
def loads(module: str) -> tuple[frozenset[str], frozenset[str]]:
    """What importing `module` runs directly: (library modules, other modules' names)."""
    ours: set[str] = set()
    others: set[str] = set()
    for node in top_level_imports(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = module.split(".")
                if MODULES[module].name != "__init__.py":
                    package = package[:-1]
                base = ".".join([*package[: len(package) - node.level + 1], base]).strip(".")
            # `from package import module` loads that module too
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            if name.startswith(OURS):
                ours.update(n for n in (name, *parents(name)) if n in MODULES)
            elif isinstance(node, ast.Import) or name == names[0]:
                others.add(name)
    return frozenset(ours), frozenset(others)


def parents(name: str) -> Iterator[str]:
    parts = name.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def third_party(module: str) -> dict[str, str]:
    """Each third-party top-level module that importing `module` loads -> the library
    module that imports it."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    pending = [module, *(p for p in parents(module) if p in MODULES)]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        ours, others = loads(current)
        pending.extend(ours)
        for name in others:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in {"__future__", *HOSTED.get(current, ())}:
                continue
            found.setdefault(top, current)
    return found


def requirements(extra: str | None) -> set[str]:
    """The distributions the plain install requires, or `extra` adds (the library's
    own extras it names, expanded)."""
    names: set[str] = set()
    for line in importlib.metadata.requires(DISTRIBUTION) or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or "extra" not in str(marker):
            wanted = extra is None
        else:
            wanted = extra is not None and marker.evaluate({"extra": extra})
        if not wanted:
            continue
        if canonicalize_name(requirement.name) == DISTRIBUTION:
            for named in requirement.extras:
                names |= requirements(named)
        else:
            names.add(canonicalize_name(requirement.name))
    return names


def providers() -> dict[str, set[str]]:
    """Top-level module -> the distributions that install it (the library aside: it
    shares the `langgraph` namespace)."""
    return {
        module: {canonicalize_name(d) for d in dists} - {DISTRIBUTION}
        for module, dists in importlib.metadata.packages_distributions().items()
    }


def undeclared() -> list[str]:
    """`module imports name (from distributions), which <extra> does not declare` lines."""
    by_module = providers()
    wrong = []
    for module in sorted(MODULES):
        extra = extra_of(module)
        allowed = requirements(None) | (requirements(extra) if extra else set())
        for top, importer in sorted(third_party(module).items()):
            dists = by_module.get(top, set())
            if not dists & allowed:
                where = f"the {extra!r} extra" if extra else "the plain install"
                wrong.append(
                    f"{module} loads {top} (via {importer}; from {sorted(dists) or '?'}), "
                    f"which {where} does not require"
                )
    return wrong


def test_every_entry_point_names_a_real_extra_and_module() -> None:
    extras = set(importlib.metadata.metadata(DISTRIBUTION).get_all("Provides-Extra") or [])
    assert set(ENTRY_POINTS) <= extras
    assert all(entry in MODULES for entries in ENTRY_POINTS.values() for entry in entries)


def test_each_extra_declares_what_its_entry_point_imports() -> None:
    assert undeclared() == []


def test_the_middleware_needs_the_agents_extra_and_says_so() -> None:
    middleware = "langgraph.store.dynamodb.recall.middleware"
    assert "langchain" in third_party(middleware)
    assert "langchain" in requirements("agents") and "langchain" not in requirements(None)
    doc = ast.get_docstring(ast.parse(MODULES[middleware].read_text())) or ""
    assert "`agents` extra" in doc
