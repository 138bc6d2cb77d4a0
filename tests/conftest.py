"""Every test starts in the same language whatever the machine's locale: what the command line
prints for a person follows the gettext environment (engine.i18n.environment_language), so the
tests that read its English pin the environment to the C locale; a test that wants Italian says
so in the environment of its own subprocess (tests/i18n/test_cli_languages.py)."""

from __future__ import annotations

import os

import pytest

for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules marked ``heavy`` (their tests take tens of seconds: browsers, daemons killed
    and restarted, brokers) run first. `make test` hands whole files to its workers in the order
    collected (pytest-xdist ``--dist loadfile``): a heavy file last keeps one core busy alone
    long after the other has finished; first, the light files fill in around it."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable: in order
