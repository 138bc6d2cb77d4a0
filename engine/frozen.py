"""Frozen dataclasses that cost less to make (stdlib only).

A ``@dataclass(frozen=True, slots=True)`` sets each field in its ``__init__`` with
``object.__setattr__(self, "name", value)``: the attribute looked up on the class by name, for
every field of every object. The engine makes several such objects per journal line (each clock
reading is three, a clock projection one, every event and the line's ``Fed``), and the hall's hub
replays every line of every board: :func:`quick_init` gives a class an ``__init__`` that sets each
slot through the slot's own descriptor, found once when the class is made. The object made is
the same (same slots, same values, still frozen, the same signature and defaults); only the
making is cheaper.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Class decorator, above ``@dataclass(frozen=True, slots=True)``: see the module docstring.
    Only for plain fields (every field in ``__init__``, positional, no ``default_factory``) and no
    ``__post_init__``: anything else raises TypeError when the class is made (the generated
    ``__init__`` would do more than this one)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init is for frozen dataclasses with slots")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init does not run __post_init__")
    names: list[str] = []
    namespace: dict[str, Any] = {}
    setters: list[str] = []
    made: type[Any] = cls  # any dataclass: its fields read as dataclasses reads them
    for i, f in enumerate(dataclasses.fields(made)):
        if not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: quick_init takes plain fields only")
        if f.default is dataclasses.MISSING:
            names.append(f.name)
        else:
            namespace[f"_default_{i}"] = f.default
            names.append(f"{f.name}=_default_{i}")
        namespace[f"_set_{i}"] = cls.__dict__[f.name].__set__
        setters.append(f"    _set_{i}(self, {f.name})")
    source = (f"def __init__(self, {', '.join(names)}):\n" +
              ("\n".join(setters) or "    pass") + "\n")
    exec(source, namespace)  # the class's own field names, as dataclasses makes its __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(getattr(cls.__init__, "__annotations__", {}))
    made.__init__ = init
    return cls
