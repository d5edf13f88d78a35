"""The layers of the house: dependencies point down, and no module imports another in a circle.

Every import counts: at the top of a module, inside a function, and under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WIRING = ("signsvc.app", "signsvc.assembly", "signsvc.preparation", "signsvc.cli", "signsvc.testing")
EDGE_AND_WIRING = ("signsvc.http", *WIRING)
DOMAIN = (
    "signsvc.accounts",
    "signsvc.templates",
    "signsvc.submissions",
    "signsvc.results",
    "signsvc.webhooks",
    "signsvc.clickwraps",
)


@functools.cache
def imports() -> dict[str, set[str]]:
    """Each module of signsvc and storage with the modules (and packages) it imports."""
    found = {}
    for path in [*ROOT.glob("signsvc/**/*.py"), *ROOT.glob("storage/**/*.py")]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found[name] = set(_imported(path, name))
    return found


def _imported(path: Path, module: str) -> list[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
    return names


def importers(
    target: str, *, among: tuple[str, ...] = ("signsvc", "storage"), besides: tuple[str, ...] = ()
) -> list[str]:
    """The modules within `among`, less those within `besides`, that import `target` or a module in it."""
    return sorted(
        module
        for module, names in imports().items()
        if _within(module, among) and not _within(module, besides) and any(_within(name, (target,)) for name in names)
    )


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def test_nothing_outside_the_http_edge_and_the_wiring_imports_the_edge():
    assert importers("signsvc.http", besides=EDGE_AND_WIRING) == []


def test_nothing_outside_the_http_edge_and_the_wiring_imports_aiohttp_web():
    assert importers("aiohttp.web", besides=EDGE_AND_WIRING) == []


def test_only_the_wiring_reads_the_configuration():
    assert importers("signsvc.infra.config", besides=WIRING) == []


def test_the_pdf_engines_import_nothing_else_of_signsvc():
    for layer in ("signsvc.infra", "signsvc.wire", "signsvc.loaders", *DOMAIN, *EDGE_AND_WIRING):
        assert importers(layer, among=("signsvc.pdf",)) == []


def test_storage_imports_nothing_of_signsvc():
    assert importers("signsvc", among=("storage",)) == []


def test_infrastructure_imports_no_domain_wire_or_edge_module():
    for layer in (*DOMAIN, "signsvc.wire", "signsvc.loaders", *EDGE_AND_WIRING):
        assert importers(layer, among=("signsvc.infra",)) == []


def test_the_wire_formats_reach_only_the_record_types_of_storage_and_no_loader_through_any_import():
    """Shapes are pure: through every chain of imports, of storage only the record types and their parts, never a
    connection, a database or a query; and no loader. So nothing a shape is given can hold a database (the links
    it signs come from `signsvc.infra.links`, not from `Files`)."""
    for module in imports():
        if _within(module, ("signsvc.wire",)):
            reads = [
                name
                for name in reached(module)
                if _within(name, ("storage", "signsvc.loaders"))
                and not _within(
                    name, ("storage.records", "storage.account_records", "storage.outbound_records", "storage.shapes")
                )
            ]
            assert reads == [], module


def reached(module: str) -> set[str]:
    """The modules `module` imports, and the modules they import, to the end."""
    found: set[str] = set()
    pending = [module]
    while pending:
        for name in imports()[pending.pop()]:
            if name in imports() and name not in found and name != module:
                found.add(name)
                pending.append(name)
    return found


def test_the_loaders_import_no_edge_and_no_wiring():
    for layer in EDGE_AND_WIRING:
        assert importers(layer, among=("signsvc.loaders",)) == []


def test_the_domain_and_the_wire_formats_import_no_edge_and_no_wiring():
    for layer in EDGE_AND_WIRING:
        assert importers(layer, among=(*DOMAIN, "signsvc.wire")) == []


def test_no_module_imports_another_in_a_circle():
    graph = {
        module: {name for name in names if name in imports() and name != module} for module, names in imports().items()
    }
    assert _cycles(graph) == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, neighbours = work[-1]
            for neighbour in neighbours:
                if neighbour not in index:
                    index[neighbour] = low[neighbour] = len(index)
                    stack.append(neighbour)
                    on_stack.add(neighbour)
                    work.append((neighbour, iter(sorted(graph[neighbour]))))
                    break
                if neighbour in on_stack:
                    low[node] = min(low[node], index[neighbour])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found
