"""Every test starts in the same language whatever the machine's locale: what the command line
prints for a person follows the gettext environment (engine.i18n.environment_language), so the
tests that read its English pin the environment to the C locale; a test that wants Italian says
so in the environment of its own subprocess (tests/i18n/test_cli_languages.py)."""

from __future__ import annotations

import os

for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"
