"""One exception root (engine.errors.DamieraError) with one subclass per family (STYLE.md): every
exception class of ours sits under exactly one family, only bad input is a ValueError, and each
package keeps its exceptions in one module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import pytest

from engine.errors import (ConfigurationError, DamieraError, HardwareError, InputError, NetworkError,
                           StateError)

FAMILIES = (InputError, HardwareError, StateError, ConfigurationError, NetworkError)
PACKAGES = ("engine", "pi", "hardware_mocks")


def _ours() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for top in PACKAGES:
        package = importlib.import_module(top)
        names = [top] + [m.name for m in pkgutil.walk_packages(package.__path__, top + ".")]
        for name in names:
            module = importlib.import_module(name)
            found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                      if issubclass(c, BaseException) and c.__module__ == name]
    return found


OURS = _ours()


def test_the_walk_finds_the_exceptions() -> None:
    names = {c.__name__ for c in OURS}
    assert {"DamieraError", "WiringError", "JournalWriteError", "WebError", "BadMessage"} <= names


@pytest.mark.parametrize("cls", [c for c in OURS if c is not DamieraError and c not in FAMILIES],
                         ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_exception_of_ours_is_in_exactly_one_family(cls: type[BaseException]) -> None:
    assert issubclass(cls, DamieraError)
    assert len([f for f in FAMILIES if issubclass(cls, f)]) == 1


def test_only_bad_input_is_a_value_error() -> None:
    assert not issubclass(DamieraError, ValueError)
    assert [c.__name__ for c in OURS if issubclass(c, ValueError) and not issubclass(c, InputError)] == []


def test_an_address_in_use_is_a_network_error_not_a_value_error() -> None:
    from pi.web.errors import WebError
    assert issubclass(WebError, NetworkError) and not issubclass(WebError, ValueError)


def test_each_package_keeps_its_exceptions_in_one_module() -> None:
    modules: dict[str, set[str]] = defaultdict(set)
    for cls in OURS:
        modules[cls.__module__.rpartition(".")[0] or cls.__module__].add(cls.__module__)
    assert {package: found for package, found in modules.items() if len(found) > 1} == {}
