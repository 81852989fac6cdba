"""Architecture rules of the `videorag` package, checked on its source (nothing is imported).

1. **No import circle between product modules.** The import graph of every `videorag.*` module
   is built with `ast` from the source, counting imports at module level *and* inside functions
   (a lazy import is still a dependency: it only moves the circle to the first call), and every
   strongly connected component must be a single module. How an import statement becomes edges
   (the way Python resolves it):

   - A relative import is made absolute against the importer's package (`__init__.py` is its own
     package; `a/b/c.py` is in `a.b`); each leading dot beyond the first goes one package up.
   - `import a.b.c` and `from a.b.c import name` depend on module `a.b.c` — a package means its
     `__init__.py` — and on the packages above it (`a.b`, `a`), whose `__init__` Python runs first.
   - `from a.b import name` where `a/b/name.py` (or `a/b/name/`) exists depends on that
     submodule (and, as above, on `a.b` and `a`); where `name` is no submodule, it is an
     attribute of `a/b/__init__.py`, so it depends on `a.b` itself.
   - The only edges left out are those to a package *containing the importer*, when they come
     from the packages-above rule: Python imports a module's own packages before the module's
     code runs, so by the time `videorag/rerank/base.py` executes `from . import x` (x a
     submodule) or `from ..retrieve.base import y`, `videorag.rerank` and `videorag` are already
     in `sys.modules` and are not run again — such an edge adds no order constraint. Taking a
     *name* from one's own package (`from . import NAME`, NAME defined in `__init__.py`) is kept:
     it needs that `__init__` to have run up to NAME, which is a real circle when `__init__`
     imports the module back.
   - Imports under `if TYPE_CHECKING:` are left out: they never run. Imports made by strings
     (`importlib.import_module`, registries' "module:attr" targets) are not seen.

   A failure prints, per circle, one path of `module (line of the import)` steps and every
   import between the modules of that circle.
2. **Layers at folder level.** Each folder of `videorag/` (and each top-level module) has a layer
   (`LAYERS`); an import, at module level or inside a function, goes to the same layer or a lower
   one, and the graph of folders has no circle.
3. **Small units.** No function or method in `videorag/` is over 60 lines (from its `def` line to
   its last line, decorators excluded; a nested function counts on its own and inside its
   parent), except those in `LONG_FUNCTIONS_ALLOWED` (declarative tables only; empty); no module
   is over 400 lines.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "videorag"
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400
LONG_FUNCTIONS_ALLOWED: set[str] = set()   # "videorag.module:Qualified.name" of declarative tables


def modules() -> dict[str, Path]:
    """{dotted module name: file} of every module of the package (a package is its __init__)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_package(name: str, files: dict[str, Path]) -> bool:
    return name in files and files[name].name == "__init__.py"


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(name: str, files: dict[str, Path]) -> dict[str, int]:
    """{imported product module: line of the first import} for one module (rules: the docstring)."""
    tree = ast.parse(files[name].read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if _is_package(name, files) else name.rpartition(".")[0]
    own_packages = set(_ancestors(name)) | {name}
    edges: dict[str, int] = {}

    def depend(target: str, line: int, named: bool = False) -> None:
        """`target` and the packages above it; a package containing the importer only when
        `named` (a name is taken from its __init__)."""
        if target not in files:
            return
        for above in _ancestors(target):
            if above in files and above not in own_packages:
                edges.setdefault(above, line)
        if target != name and (named or target not in own_packages):
            edges.setdefault(target, line)

    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                depend(alias.name, node.lineno)
            continue
        if node.level:
            base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            if sub in files:
                depend(sub, node.lineno)
            else:
                depend(source, node.lineno, named=True)
    return edges


def import_graph() -> dict[str, dict[str, int]]:
    files = modules()
    return {name: imports_of(name, files) for name in files}


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components, each a sorted list of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def a_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    """One circle through the component's first module, as `a (line n) -> b (line m) -> a`."""
    inside, start = set(component), component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:   # breadth first: the shortest way back to `start`
        following = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    path.reverse()
                    path.append(start)
                    return " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(path, path[1:])) + f" -> {start}"
                if child in inside and child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    return " <-> ".join(component)


def test_the_import_rules_follow_python():
    """The resolution rules on the package's own shapes (a guard on the checker itself)."""
    files = modules()
    assert "videorag.retrieve" in files and "videorag.retrieve.moments" in files
    edges = imports_of("videorag.methods.text", files)
    assert {"videorag.retrieve", "videorag.retrieve.moments", "videorag.retrieve.fusion"} <= set(edges)
    assert "videorag" not in edges and "videorag.methods" not in edges   # its own packages
    lazy = imports_of("videorag.index", files)   # `from . import store` inside __getattr__
    assert "videorag.index.store" in lazy and "videorag.index" not in lazy
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    components = strongly_connected(graph)
    assert sorted(map(len, components)) == [1, 3]
    assert a_cycle(graph, ["a", "b", "c"]) == "a (line 1) -> b (line 2) -> c (line 3) -> a"


def describe(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    """A circle of the component, then every import between its modules."""
    inside = [f"    {a} -> {b} (line {line})" for a in component for b, line in sorted(graph[a].items())
              if b in component]
    return f"{len(component)} modules, e.g. {a_cycle(graph, component)}\n" + "\n".join(inside)


def test_no_import_circle_between_product_modules():
    graph = import_graph()
    circles = [describe(graph, c) for c in strongly_connected(graph) if len(c) > 1]
    assert not circles, "import circles:\n" + "\n".join(circles)


def _functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def long_functions() -> list[str]:
    found = []
    for name, path in modules().items():
        for qualified, node in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and f"{name}:{qualified}" not in LONG_FUNCTIONS_ALLOWED:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {qualified} ({lines} lines)")
    return found


def test_no_function_over_60_lines():
    found = long_functions()
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(found)


def test_no_module_over_400_lines():
    found = []
    for path in modules().values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{path.relative_to(PACKAGE.parent)} ({lines} lines)")
    assert not found, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(found)


# The layers of the package, lowest first: a unit (a folder of `videorag/`, or a top-level
# module) imports only from its own layer or those below it. docs/ARCHITECTURE.md shows them.
LAYERS = (
    ("errors", "names", "registry", "resources", "where", "types", "languages", "analysis"),  # no product
    # imports (but errors): domain errors, registries, result types, language and text analysis
    ("config", "models", "console", "clip", "vectors", "cluster"),     # settings, vector indexes, media cuts
    ("llm", "index", "asr", "lexical", "embed", "caption", "visual"),  # runtimes, the index, BM25, media models
    ("chapters", "snapshot", "ingest"),                                # topics; the search corpus; filling the index
    ("retrieve",),                                                     # search: ranking, moments
    ("rerank",),                                                       # scoring a short list
    ("methods", "answerability", "verify"),                            # ranked evidence, its checks
    ("generate", "shard", "requests"),                                 # answers; search across machines
    ("library", "schemas"),                                            # the index's one writer; JSON shapes
    ("pipeline",),                                                     # VideoRAG
    ("videorag", "demo"),                                              # the API
    ("serve",),                                                        # HTTP, MCP
    ("options", "eval", "finetune"),                                   # the option table; what runs on top
    ("cli",),
)


def unit(module: str) -> str:
    """The folder (or top-level module) a module belongs to: `videorag.rerank.llm` -> `rerank`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def folder_graph() -> dict[str, dict[str, str]]:
    """{unit: {imported unit: "module (line n) -> module"}}, module- and function-level imports."""
    graph: dict[str, dict[str, str]] = {}
    for module, targets in import_graph().items():
        for target, line in targets.items():
            if unit(target) != unit(module):
                graph.setdefault(unit(module), {}).setdefault(unit(target), f"{module} (line {line}) -> {target}")
    return graph


def test_every_unit_has_a_layer():
    layered = [u for layer in LAYERS for u in layer]
    assert len(layered) == len(set(layered))
    assert {unit(m) for m in modules()} == set(layered)


def test_folders_import_only_their_own_layer_or_lower():
    """Layers hold at folder level, lazy imports included: `rerank` never reaches into
    `generate`, `visual` never into `eval`, a stage never into the facade or the server."""
    rank = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    upward = [f"{a} -> {b}: {why}" for a, targets in folder_graph().items() for b, why in targets.items()
              if rank[b] > rank[a]]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_layers_are_as_tight_as_the_imports():
    """No unit could sit a layer lower: each one above the first imports from the layer right
    below its own, or from its own (from one that does). A unit importing little sits low, so the
    table allows no import the code does not make."""
    rank = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    graph = folder_graph()
    loose = [u for u, i in rank.items() if i and not any(rank[d] in (i - 1, i) for d in graph.get(u, {}))]
    assert not loose, "units that could sit lower: " + ", ".join(f"{u} (imports {sorted(graph.get(u, {}))})"
                                                                for u in loose)


def test_no_import_circle_between_folders():
    graph = folder_graph()
    nodes = {u: {t: 1 for t in graph.get(u, {})} for layer in LAYERS for u in layer}
    circles = [c for c in strongly_connected(nodes) if len(c) > 1]
    assert not circles, "folder circles:\n" + "\n".join(
        f"{c}: " + "; ".join(graph[a][b] for a in c for b in graph.get(a, {}) if b in c) for c in circles)


def test_every_allowed_long_function_exists_and_is_long():
    """The allow-list cannot outlive what it excuses."""
    files = modules()
    for entry in LONG_FUNCTIONS_ALLOWED:
        module, _, qualified = entry.partition(":")
        lengths = {q: n.end_lineno - n.lineno + 1
                   for q, n in _functions(ast.parse(files[module].read_text(encoding="utf-8")))}
        assert lengths.get(qualified, 0) > MAX_FUNCTION_LINES, entry
