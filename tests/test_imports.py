"""Dependencies point one way (STYLE.md), read from the source (every import, lazy ones in
functions included):

- ``engine`` imports only the standard library and itself; ``pi`` imports ``engine`` but never
  ``hardware_mocks``; only ``hardware_mocks``, the benchmarks and the tests import the fakes;
- inside ``pi`` the rooms' arrows run one way: ``pi/web`` and ``pi/hall`` → ``pi/board`` →
  ``pi/drivers`` → ``engine`` (the hall also uses the web's HTTP tools: hall → web, never the
  other way); web and hall read a board through ``pi/board``, never the drivers; only
  ``pi/cli.py``, ``pi/run.py`` and ``pi/daemon.py`` import board, web and hall together, and no
  room imports them;
- no module imports a private (underscore) name of another of our modules (ruff's SLF rules
  catch the attribute access ``module._name``);
- no import circle among the modules of ``engine`` and ``pi``.
"""

from __future__ import annotations

import ast
import pathlib
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
OURS = ("engine", "pi", "hardware_mocks")

#: What each room of ``pi`` may import of ``pi`` (every room may import ``engine``).
ROOMS: dict[str, frozenset[str]] = {
    "pi.drivers": frozenset({"pi.drivers"}),
    "pi.board": frozenset({"pi.board", "pi.drivers"}),
    "pi.web": frozenset({"pi.web", "pi.board"}),
    "pi.hall": frozenset({"pi.hall", "pi.web", "pi.board"}),
}
#: The composition root and the command line: the only modules that import every room.
TOP = frozenset({"pi.cli", "pi.run", "pi.daemon"})
#: Any other module at the top of ``pi`` (``pi.bench``, the package itself).
OTHER_TOP = frozenset({"pi.board", "pi.drivers"})

@dataclass(frozen=True)
class Import:
    path: str  # the importing file, relative to the repository
    module: str  # the importing module's dotted name
    target: str  # the module imported, or imported from
    names: tuple[str, ...]  # ``from target import names``; () for ``import target``
    type_checking: bool  # under ``if TYPE_CHECKING:`` (no import at run time)


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_in(*packages: str) -> list[Import]:
    out: list[Import] = []
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel, module = str(path.relative_to(ROOT)), module_name(path)
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)

            def visit(node: ast.AST, typing_only: bool, rel: str = rel, module: str = module
                      ) -> None:
                if isinstance(node, ast.Import):
                    out.extend(Import(rel, module, a.name, (), typing_only) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    assert node.level == 0, f"{rel}: relative import"
                    out.append(Import(rel, module, node.module or "",
                                      tuple(a.name for a in node.names), typing_only))
                for child in ast.iter_child_nodes(node):
                    visit(child, typing_only or (isinstance(node, ast.If)
                                                 and _is_type_checking(node.test)
                                                 and child in node.body))
            visit(tree, False)
    return out


def top(name: str) -> str:
    return name.split(".")[0]


def room(module: str) -> str:
    """``engine``, a room of ``pi`` (``pi.board``), or a module at the top of ``pi``."""
    parts = module.split(".")
    if parts[0] != "pi" or len(parts) == 1:
        return parts[0]
    return ".".join(parts[:2])


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# ---------------------------------------------------------------------- packages


def test_engine_is_standard_library_only() -> None:
    bad = [(i.path, i.target) for i in imports_in("engine")
           if top(i.target) not in STDLIB | {"engine"}]
    assert bad == []


def test_pi_never_imports_the_fakes() -> None:
    assert [(i.path, i.target) for i in imports_in("pi") if top(i.target) == "hardware_mocks"] == []


def test_engine_does_not_import_pi() -> None:
    bad = [(i.path, i.target) for i in imports_in("engine") if top(i.target) in ("pi", "hardware_mocks")]
    assert bad == []


# ---------------------------------------------------------------------- rooms


def against_the_arrows() -> set[tuple[str, str]]:
    bad = set()
    for i in imports_in("pi"):
        if top(i.target) != "pi" or i.target == "pi":
            continue
        mine, theirs = room(i.module), room(i.target)
        if mine in TOP or mine == theirs:
            continue
        allowed = ROOMS.get(mine, OTHER_TOP)
        if theirs not in allowed:
            bad.add((i.path, i.target))
    return bad


def test_the_rooms_arrows_run_one_way() -> None:
    assert against_the_arrows() == set()


def test_the_arrows_test_sees_a_wrong_way_import() -> None:
    # The rule itself: a driver importing the board, the board importing the web, the web
    # importing the drivers, a room importing the composition root: all refused.
    for mine, theirs in (("pi.drivers.sensors", "pi.board.session"),
                         ("pi.board.controller", "pi.web.views"),
                         ("pi.web.views", "pi.drivers.display"),
                         ("pi.board.session", "pi.daemon"),
                         ("pi.bench", "pi.web.server")):
        assert room(theirs) not in ROOMS.get(room(mine), OTHER_TOP), (mine, theirs)
    assert room("pi.hall.hub") == "pi.hall" and room("pi.cli") == "pi.cli" in TOP


# ---------------------------------------------------------------------- private names


def private_imports() -> set[tuple[str, str]]:
    """(file, ``module.name``) for each private name imported from another of our modules,
    and each private module imported from outside its own package."""
    bad = set()
    for i in imports_in("engine", "pi", "hardware_mocks", "benchmarks", "tests"):
        if top(i.target) not in OURS or i.target == i.module:
            continue
        parts = i.target.split(".")
        for n, part in enumerate(parts):
            if is_private(part) and not i.module.startswith(".".join(parts[:n]) + "."):
                bad.add((i.path, i.target))
        bad.update((i.path, f"{i.target}.{name}") for name in i.names if is_private(name))
    return bad


def test_no_module_imports_a_private_name_of_another() -> None:
    assert private_imports() == set()


# ---------------------------------------------------------------------- circles


def import_circles(*packages: str) -> list[list[str]]:
    """The circles among the modules of ``packages`` (each as the path that closes it)."""
    modules = {module_name(p) for pkg in packages for p in (ROOT / pkg).rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    # imports under TYPE_CHECKING count too: a circle of types is a circle of the design (the
    # rounds once held their Hub that way; they name what they use of it in a Protocol now)
    for i in imports_in(*packages):
        targets = [f"{i.target}.{n}" for n in i.names if f"{i.target}.{n}" in modules] or [i.target]
        for target in targets:
            found = resolve(target)
            if found is not None and found != i.module:
                graph[i.module].add(found)
    circles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = 2
    for m in sorted(graph):
        if m not in state:
            walk(m, [m])
    return circles


def test_no_import_circle_in_engine_and_pi() -> None:
    circles = import_circles("engine", "pi")
    assert circles == []


def test_no_import_circle_in_the_fakes() -> None:
    # issue 39: the simulator's companions (trace player, web controls) once imported the
    # simulation that imports them; they read it through hardware_mocks.simulated now
    assert import_circles("engine", "pi", "hardware_mocks") == []


def test_engine_package_is_its_map_and_import_cheap() -> None:
    """``engine/__init__`` re-exports the public face (every name of ``__all__`` exists) and
    loads only the rules core: the game record, PDN, clock and arbiter wait for their import."""
    import json
    import subprocess
    code = ("import json, sys, engine\n"
            "print(json.dumps([[n for n in engine.__all__ if not hasattr(engine, n)],\n"
            "                  sorted(m for m in sys.modules if m.startswith('engine.'))]))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    missing, loaded = json.loads(run.stdout)
    assert missing == []
    assert set(loaded) <= {"engine.board", "engine.colour", "engine.errors", "engine.fen",
                           "engine.squares", "engine.variants"}, loaded


# ---------------------------------------------------------------------- the hall and the web

#: What the hall may import of the web (issue 39): the board's composed routes and the parts
#: they are built from (``pi.web.server``: ``BoardRoutes`` and its Protocols; the live feeds
#: and the views the board's pages show, which the hall's pages show alike), and the helpers
#: every site shares (the site and its auth, HTTP helpers, languages).
HALL_MAY_IMPORT = frozenset({"pi.web.server", "pi.web.feeds", "pi.web.views", "pi.web.site",
                             "pi.web.auth", "pi.web.httputil", "pi.web.i18n"})
#: Of ``pi.web.server``, the board's routes alone (never the daemon's server).
BOARD_ROUTES = frozenset({"BoardRoutes", "BoardParts", "BoardFeed", "ActionSink", "BoardGames",
                          "Route", "report_pdf_response", "PDN"})


def test_the_hall_imports_of_the_web_only_the_board_routes_and_shared_helpers() -> None:
    bad = {(i.path, i.target) for i in imports_in("pi/hall")
           if i.target.startswith("pi.web.") and i.target not in HALL_MAY_IMPORT}
    # ``from pi.web import auth``: the module named is what counts
    bad |= {(i.path, f"{i.target}.{n}") for i in imports_in("pi/hall") if i.target == "pi.web"
            for n in i.names if f"pi.web.{n}" not in HALL_MAY_IMPORT}
    bad |= {(i.path, f"{i.target}.{n}") for i in imports_in("pi/hall")
            if i.target == "pi.web.server" for n in i.names if n not in BOARD_ROUTES}
    assert bad == set()


def _classes_of(package: str) -> dict[str, set[str]]:
    """Module → the names of the classes it defines."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out[module_name(path)] = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    return out


def test_no_class_of_the_hall_subclasses_a_class_of_the_web() -> None:
    """Issue 39: the hall composes the web's parts (a site, an auth, the board's routes); it
    never inherits a server of the web (three servers once shared behaviour that way)."""
    web_classes = {(m, c) for m, cs in _classes_of("pi/web").items() for c in cs}
    bad = []
    for path in sorted((ROOT / "pi/hall").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported: dict[str, tuple[str, str]] = {}  # local name → (web module, class)
        modules: dict[str, str] = {}  # local name → web module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pi.web"):
                for a in node.names:
                    imported[a.asname or a.name] = (node.module or "", a.name)
                    modules[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                if isinstance(base, ast.Name) and imported.get(base.id) in web_classes:
                    bad.append((path.name, node.name, base.id))
                if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
                        and (modules.get(base.value.id), base.attr) in web_classes:
                    bad.append((path.name, node.name, base.attr))
    assert bad == []


def test_no_route_is_found_by_a_name() -> None:
    """Issue 39: no handler (or anything else) of the web and the hall is looked up by a name
    made at run time (``getattr(server, name)``): every ``getattr`` names its attribute."""
    bad = []
    for package in ("pi/web", "pi/hall"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id == "getattr" and len(node.args) >= 2 \
                        and not isinstance(node.args[1], ast.Constant):
                    bad.append((path.name, node.lineno))
    assert bad == []
