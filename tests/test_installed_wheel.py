"""What a user installs, not the checkout: the wheel built from this tree, installed into a fresh
virtualenv outside it, runs a board and a hall and serves every page, static file and catalog.

Every other test imports the checkout (an editable install), where ``pi/web/static`` lies beside
the code whether or not the package declares it: an installed board once answered 404 "index.html
is not installed" on every page while all its tests passed (issue 36). Here the package is built
as ``pip`` builds it for ``install-pi.sh``, installed with ``--no-deps`` into a venv made in a
temporary folder, and run from there, its working directory outside the checkout and no
``PYTHONPATH``. Its dependencies are this test venv's (a ``.pth`` line naming its site-packages,
which does not run this venv's editable finder): what is checked is the package's own content;
the installers' dependency resolution is the container tests' (``tests/system``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from doc_blocks import free_port

pytestmark = pytest.mark.heavy  # builds a wheel and runs a board and a hall: run first

ROOT = Path(__file__).resolve().parents[1]
BOARD_STATIC = ROOT / "pi" / "web" / "static"
HALL_STATIC = ROOT / "pi" / "hall" / "static"
SAMPLE = Path("pi") / "samples" / "italian_sample.jsonl"


@dataclass(frozen=True)
class Installed:
    """A venv outside the checkout holding damiera's wheel; ``home`` is a folder to run in."""

    venv: Path
    home: Path

    @property
    def damiera(self) -> Path:
        return self.venv / "bin" / "damiera"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return env

    def run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.damiera), *argv], cwd=self.home, env=self.env(),
                              capture_output=True, text=True, timeout=timeout)

    def package_dir(self) -> Path:
        out = subprocess.run([str(self.python), "-c", "import pi; print(pi.__file__)"],
                             cwd=self.home, env=self.env(), capture_output=True, text=True,
                             check=True).stdout.strip()
        return Path(out).parent


def _source_files() -> list[str]:
    """The files a clone of this tree has (tracked, and new ones not ignored)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                         cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("installed")
    # A copy of the tree, so that the build's own files (build/, *.egg-info) stay out of the
    # checkout the other test files run from.
    src = base / "src"
    for name in _source_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    wheels = base / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--wheel-dir", str(wheels), str(src)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("damiera-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "--quiet", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    assert install.returncode == 0, install.stderr
    site = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "damiera_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    home = base / "home"
    home.mkdir()
    return Installed(venv, home)


def test_the_installed_package_is_the_wheels_not_the_checkouts(installed: Installed) -> None:
    package = installed.package_dir()
    assert installed.venv in package.parents, package
    assert ROOT not in package.parents


def _get(url: str, token: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _wait_answering(url: str, proc: subprocess.Popen[str], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"exited {proc.returncode}: {log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    pytest.fail(f"{url} did not answer in {seconds} s: {log.read_text(errors='replace')}")


Serving = tuple[Installed, list[subprocess.Popen[str]]]


@pytest.fixture
def serving(installed: Installed) -> Iterator[Serving]:
    """Processes started from the install, stopped (SIGTERM, then killed) at the end."""
    procs: list[subprocess.Popen[str]] = []
    yield installed, procs
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _start(installed: Installed, procs: list[subprocess.Popen[str]], name: str,
           *argv: str) -> Path:
    log = installed.home / f"{name}.log"
    with open(log, "ab") as out:  # a file: nobody reads a pipe while it runs
        procs.append(subprocess.Popen([str(installed.damiera), *argv], cwd=installed.home,
                                      env=installed.env(), stdout=out, stderr=out, text=True))
    return log


def _every_static_file_is_served(base: str, folder: Path) -> None:
    files = sorted(p for p in folder.iterdir() if p.is_file())
    assert files
    for path in files:
        status, body = _get(f"{base}/{path.name}")
        assert (status, body) == (200, path.read_bytes()), f"{base}/{path.name}: {status}"


def _catalogs(base: str) -> None:
    catalogs = {}
    for lang in ("en", "it"):
        status, body = _get(f"{base}/i18n/{lang}.json")
        assert status == 200, (lang, body[:200])
        catalogs[lang] = json.loads(body)
    # the compiled Italian catalog came with the package: the pages' words are translated
    assert catalogs["it"] and catalogs["it"] != catalogs["en"]


def test_an_installed_board_serves_every_page(serving: Serving) -> None:
    installed, procs = serving
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = _start(installed, procs, "board", "run", "--simulate", "--state-dir",
                 str(installed.home / "board-state"), "--http", f"127.0.0.1:{port}", "--quiet")
    _wait_answering(f"{base}/api/state", procs[-1], log, 60)
    for page in ("/", "/arbiter", "/simulator"):
        status, body = _get(base + page)
        assert status == 200 and b"<html" in body.lower(), (page, status, body[:200])
    _every_static_file_is_served(f"{base}/static", BOARD_STATIC)
    _catalogs(base)
    for feed in ("/api/state", "/broadcast.pdn"):  # the public ones
        status, body = _get(base + feed)
        assert status == 200 and body, (feed, status)
    # the arbiter's, with the token as docs/arbiter.md has it printed
    token = installed.run("token", "--state-dir", str(installed.home / "board-state"))
    assert token.returncode == 0, token.stderr
    for feed in ("/api/games", "/game.pdn", "/api/replay", "/api/trace.jsonl"):
        status, body = _get(base + feed, token.stdout.strip())
        assert status == 200 and body, (feed, status, body[:200])


def test_an_installed_hall_serves_every_page(serving: Serving) -> None:
    if shutil.which("mosquitto") is None or shutil.which("openssl") is None:
        pytest.fail("Debian's mosquitto and openssl are needed: make system-deps")
    installed, procs = serving
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = _start(installed, procs, "hall", "hub", "demo", "--boards", "1", "--dir",
                 str(installed.home / "hall"), "--http", f"127.0.0.1:{port}", "--speed", "20")
    _wait_answering(f"{base}/api/hall", procs[-1], log, 90)
    for page in ("/", "/arbiter", "/standings"):
        status, body = _get(base + page)
        assert status == 200 and b"<html" in body.lower(), (page, status, body[:200])
    _every_static_file_is_served(f"{base}/hall", HALL_STATIC)
    _every_static_file_is_served(f"{base}/static", BOARD_STATIC)
    _catalogs(base)
    # the board's own pages, as the hub serves them, once the board has joined
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, body = _get(f"{base}/boards/1/")
        if status == 200:
            break
        time.sleep(0.2)
    assert status == 200 and b"<html" in body.lower(), (status, body[:200],
                                                         log.read_text(errors="replace"))
    status, body = _get(f"{base}/boards/1/arbiter")
    assert status == 200 and b"<html" in body.lower(), (status, body[:200])


def test_the_installed_sample_game_plays_and_reports(installed: Installed) -> None:
    trace = installed.package_dir() / SAMPLE.relative_to("pi")
    state = installed.home / "sample-state"
    played = installed.run("run", "--simulate", "--trace", str(trace), "--speed", "max",
                           "--state-dir", str(state), "--http", "off", "--quiet")
    assert played.returncode == 0, played.stderr
    (game,) = (state / "games").iterdir()
    expected = (ROOT / "pi" / "samples" / "italian_sample.pdn").read_text()
    result = next(line for line in expected.splitlines() if line.startswith("[Result "))
    assert result in (game / "game.pdn").read_text()
    pdf = installed.home / "report.pdf"
    report = installed.run("report", "--pdf", str(pdf), "--lang", "it", str(game))
    assert report.returncode == 0, report.stderr
    assert pdf.read_bytes().startswith(b"%PDF")


def test_the_installed_wiring_examples_are_all_there(installed: Installed) -> None:
    shipped = subprocess.run(
        [str(installed.python), "-c",
         "import importlib.resources as r; "
         "print('\\n'.join(sorted(p.name for p in (r.files('pi.drivers') / 'wiring').iterdir())))"],
        cwd=installed.home, env=installed.env(), capture_output=True, text=True, check=True)
    assert shipped.stdout.split() == sorted(
        p.name for p in (ROOT / "pi" / "drivers" / "wiring").glob("*.toml"))
