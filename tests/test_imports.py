"""Dependencies point one way (STYLE.md): engine imports only the standard library and itself;
pi imports engine but never hardware_mocks; only hardware_mocks and tests import the fakes."""

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def imports_of(package: str) -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out += [(str(path.relative_to(ROOT)), a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.append((str(path.relative_to(ROOT)), node.module))
    return out


def test_engine_is_standard_library_only() -> None:
    bad = [(f, m) for f, m in imports_of("engine") if m.split(".")[0] not in STDLIB | {"engine"}]
    assert bad == []


def test_pi_never_imports_the_fakes() -> None:
    assert [(f, m) for f, m in imports_of("pi") if m.split(".")[0] == "hardware_mocks"] == []


def test_engine_does_not_import_pi() -> None:
    assert [(f, m) for f, m in imports_of("engine") if m.split(".")[0] in ("pi", "hardware_mocks")] == []


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
