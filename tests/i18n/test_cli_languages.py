"""The command line's messages for people in the terminal's language (issue 20): each command
run as a subprocess with ``LANG=it_IT.UTF-8`` speaks Italian and with ``LANG=C`` English —
``damiera doctor``, ``hardware probe|watch|map|test|diagram``, ``replay``'s summary, ``run``'s
terminal, ``hub init`` (and ``--bridge``) and (slow, with Mosquitto) ``hub demo``. What is a contract stays
English in both: the errors on stderr, ``replay --json``, the board test's report files; a
board's config file with ``language`` wins over the environment for its daemon."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # the command line in two languages: run first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
MCP8 = "pi/drivers/wiring/mcp23017_8x8.toml"
SAMPLE = "pi/samples/italian_sample.jsonl"
ITALIAN, ENGLISH = "it_IT.UTF-8", "C"


def environment(lang: str, tmp_path: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "STATE_DIRECTORY")}
    env["LANG"] = lang
    env["PYTHONIOENCODING"] = "utf-8"  # the C locale's streams would be ASCII on an old Python
    if tmp_path is not None:
        env["STATE_DIRECTORY"] = str(tmp_path / "state")
    return env


def damiera(lang: str, *args: str, tmp_path: Path | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", *args], cwd=ROOT, text=True,
                          capture_output=True, env=environment(lang, tmp_path), timeout=timeout,
                          encoding="utf-8")


def both(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str],
                                              subprocess.CompletedProcess[str]]:
    return (damiera(ITALIAN, *args, tmp_path=tmp_path / "it"),
            damiera(ENGLISH, *args, tmp_path=tmp_path / "en"))


def summary(stdout: str, italian: bool) -> str:
    """The last line ``doctor`` must print for the findings above it, in the plural forms of
    its language: counted from the lines, since the fsync check measures this machine's disk
    (a loaded machine's p99 makes it a warning)."""
    lines = stdout.splitlines()[:-1]
    ok, warn, fail = (sum(line.startswith(p) for line in lines) for p in ("OK ", "WARN ", "FAIL "))
    if italian:
        words = (("avviso", "avvisi")[warn != 1], ("guasto", "guasti")[fail != 1])
    else:
        words = (("warning", "warnings")[warn != 1], ("fault", "faults")[fail != 1])
    verdict = "FAIL" if fail else "WARN" if warn else "OK"
    return f"{verdict}: {ok} ok, {warn} {words[0]}, {fail} {words[1]}"


def test_doctor(tmp_path: Path) -> None:
    it, en = both(tmp_path, "doctor", "--simulate")
    assert it.returncode == en.returncode == 0, (it.stderr, en.stderr)
    for words in ("gruppo i2c: ", "ne fa parte", "l'OLED risponde", "MB liberi",
                  "orologio: sincronizzato"):
        assert words in it.stdout, (words, it.stdout)
    for words in ("group i2c: ", "is in it", "the OLED answers", "MB free",
                  "clock: synchronised"):
        assert words in en.stdout and words not in it.stdout, (words, en.stdout)
    assert it.stdout.splitlines()[-1] == summary(it.stdout, True)
    assert en.stdout.splitlines()[-1] == summary(en.stdout, False)
    assert len(it.stdout.splitlines()) == len(en.stdout.splitlines()) == 11  # ten findings


def test_the_counts_take_their_plural_forms(tmp_path: Path) -> None:
    it, en = both(tmp_path, "doctor", "--simulate", "--fault", "bus-off")
    assert it.returncode == en.returncode == 1
    assert it.stdout.splitlines()[-1] == summary(it.stdout, True)
    assert en.stdout.splitlines()[-1] == summary(en.stdout, False)
    assert summary(en.stdout, False).endswith(" 2 faults")
    assert "FAIL OLED: non controllato: " in it.stdout
    assert "FAIL OLED: not checked: " in en.stdout
    it, en = both(tmp_path, "hardware", "probe", "--simulate", "--wiring", MCP8,
                  "--fault", "bus-off")
    assert it.stdout.splitlines()[-1] == "FAIL: 0 ok, 0 avvisi, 1 guasto"
    assert en.stdout.splitlines()[-1] == "FAIL: 0 ok, 0 warnings, 1 fault"
    assert "— esegui damiera doctor" in it.stdout


def test_probe(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "probe", "--simulate", "--wiring", MCP8,
                  "--fault", "missing-chip:0x21")
    assert it.returncode == en.returncode == 1
    assert "FAIL 0x21: mancante: u2 MCP23017 non risponde (caselle " in it.stdout
    assert "— controlla la sua alimentazione, SDA/SCL e i ponticelli A0-A2" in it.stdout
    assert "FAIL 0x21: missing: u2 MCP23017 does not answer (squares " in en.stdout
    assert "OK   0x20: u1: MCP23017 (valori di accensione: IOCON 0x00" in it.stdout
    assert "INT a riposo" in it.stdout and "pulsante orologio del bianco a riposo" in it.stdout
    assert "white clock button at rest" in en.stdout and "at rest" not in it.stdout
    assert it.stdout.splitlines()[-1] == "FAIL: 24 ok, 0 avvisi, 2 guasti"


def test_probe_without_a_wiring_proposes_one(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "probe", "--simulate")
    assert "valori di accensione: IOCON 0x00, IODIR 0xffff" in it.stdout
    assert "# nessun file di cablaggio: una proposta per ciò che risponde" in it.stdout
    assert "power-on values: IOCON 0x00, IODIR 0xffff" in en.stdout
    # the proposal is a wiring file: the same in both languages after its first line
    assert it.stdout.split("board = ", 1)[1].rsplit("\n", 2)[0] == \
        en.stdout.split("board = ", 1)[1].rsplit("\n", 2)[0]


def test_watch(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "watch", "--simulate", "--seconds", "1",
                  "--fault", "chatter:c3")
    assert it.returncode == en.returncode == 0
    assert " c3 chiusa" in it.stdout and " c3 aperta" in it.stdout
    assert it.stdout.splitlines()[-1].startswith("rimbalzi c3: ")
    assert " c3 closed" in en.stdout and " c3 open" in en.stdout
    assert en.stdout.splitlines()[-1].startswith("bounce c3: ")


def test_map(tmp_path: Path) -> None:
    it = damiera(ITALIAN, "hardware", "map", "--simulate", "--variant", "italian", "--out",
                 str(tmp_path / "it.toml"))
    en = damiera(ENGLISH, "hardware", "map", "--simulate", "--variant", "italian", "--out",
                 str(tmp_path / "en.toml"))
    assert it.returncode == en.returncode == 0, (it.stderr, en.stderr)
    assert "metti un pezzo su 1 (" in it.stdout and "togli il pezzo da 1 (" in it.stdout
    assert "put a piece on 1 (" in en.stdout and "take the piece off 1 (" in en.stdout
    assert "64 caselle su 5 espansori scritte" in it.stdout
    assert "64 squares on 5 expanders written" in en.stdout
    # the wiring file written is a file, not a message: the same bytes
    assert (tmp_path / "it.toml").read_bytes() == (tmp_path / "en.toml").read_bytes()


def test_board_test(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "test", "--simulate", "--wiring", MCP8,
                  "--variant", "italian", "--fault", "swap:b1,d1")
    assert it.returncode == en.returncode == 1
    assert "disponi la posizione iniziale" in it.stdout
    assert ("OK   disposizione: la posizione iniziale corrisponde (IT 7.1), orientamento 0° "
            "(IT 7.2)") in it.stdout
    assert "FAIL b1: scambiata con d1 — i fili di queste caselle sono incrociati" in it.stdout
    assert "caselle: 62 ok, 1 scambiata con b1, 1 scambiata con d1" in it.stdout
    assert "rapporto: " in it.stdout
    assert "set up the initial position" in en.stdout and "b1: swapped with d1" in en.stdout
    assert "squares: 62 ok, 1 swapped with b1, 1 swapped with d1" in en.stdout
    # the reports filed in the state directory are English whatever the terminal spoke
    for lang in ("it", "en"):
        (text,) = (tmp_path / lang / "state" / "board-tests").glob("*.txt")
        (data,) = (tmp_path / lang / "state" / "board-tests").glob("*.json")
        assert "b1: swapped with d1" in text.read_text(encoding="utf-8")
        assert "squares: 62 ok, 1 swapped with b1, 1 swapped with d1" in text.read_text(
            encoding="utf-8")
        assert json.loads(data.read_text(encoding="utf-8"))["squares"]["b1"] == "swapped with d1"


def test_diagram(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "diagram", "--wiring", MCP8)
    assert it.returncode == en.returncode == 0
    assert "lato del Bianco (orientamento 0)" in it.stdout and "cicalino: GPIO 18" in it.stdout
    assert "White's side (orientation 0)" in en.stdout and "buzzer: GPIO 18" in en.stdout
    # the committed drawing is the English one
    assert en.stdout == (ROOT / "docs" / "wiring" / "mcp23017_8x8.svg").read_text(
        encoding="utf-8")


def test_replay(tmp_path: Path) -> None:
    it, en = both(tmp_path, "replay", SAMPLE)
    assert it.returncode == en.returncode == 0
    assert it.stdout.startswith("partita italian, 49 semimosse\n")
    assert en.stdout.startswith("italian game, 49 plies\n")
    assert "Segnalazioni:" in it.stdout and "Flags:" in en.stdout
    assert "irregolarità" in it.stdout and "irregularity" in en.stdout
    # the article's title in the regulation's own words, the flag's text localized
    assert "IT 8.1.3: toccare un proprio pezzo e muoverne un altro" in it.stdout
    assert "toccato 19, mosso 22" in it.stdout and "touched 19, moved 22" in en.stdout
    assert "Risultato: 1-0 (IT 9.2.3: il nero non ha più pezzi)" in it.stdout
    assert "Result: 1-0 (IT 9.2.3: " in en.stdout
    # the JSON report is a contract (docs/trace-format.md): the same in both
    it_json, en_json = both(tmp_path, "replay", SAMPLE, "--json")
    assert it_json.stdout == en_json.stdout and json.loads(it_json.stdout)["result"] == "1-0"


def test_errors_stay_english(tmp_path: Path) -> None:
    it, en = both(tmp_path, "hardware", "probe", "--simulate", "--bus", "999")
    assert it.returncode == en.returncode == 2
    assert it.stderr == en.stderr and it.stderr.startswith("damiera: --bus: an I²C bus number")


def test_run_follows_the_environment_unless_the_config_says(tmp_path: Path) -> None:
    args = ("run", "--simulate", "--trace", SAMPLE, "--speed", "max", "--http", "off",
            "--quiet")
    it = damiera(ITALIAN, *args, "--state-dir", str(tmp_path / "it"))
    en = damiera(ENGLISH, *args, "--state-dir", str(tmp_path / "en"))
    assert it.returncode == en.returncode == 0, (it.stderr, en.stderr)
    assert "mossa  25" in it.stdout and "il nero non ha più pezzi" in it.stdout
    assert "move  25" in en.stdout and "mossa" not in en.stdout
    # a board's config file with `language` wins over the environment, either way
    (tmp_path / "en.toml").write_text('language = "en"\n', encoding="utf-8")
    (tmp_path / "it.toml").write_text('language = "it"\n', encoding="utf-8")
    kept = damiera(ITALIAN, *args, "--config", str(tmp_path / "en.toml"),
                   "--state-dir", str(tmp_path / "kept-en"))
    assert kept.returncode == 0 and "move  25" in kept.stdout and "mossa" not in kept.stdout
    kept = damiera(ENGLISH, *args, "--config", str(tmp_path / "it.toml"),
                   "--state-dir", str(tmp_path / "kept-it"))
    assert kept.returncode == 0 and "mossa  25" in kept.stdout


def test_hub_init(tmp_path: Path) -> None:
    it = damiera(ITALIAN, "hub", "init", "--boards", "1", "--dir", str(tmp_path / "it"))
    en = damiera(ENGLISH, "hub", "init", "--boards", "2", "--dir", str(tmp_path / "en"))
    assert it.returncode == en.returncode == 0, (it.stderr, en.stderr)
    assert it.stdout.startswith("sala hall: 1 damiera, broker ")
    assert "(copia ciascuno sulla sua damiera)" in it.stdout
    assert "(l'hub come servizio su questo PC, dalla copia dei sorgenti di damiera)" in it.stdout
    assert en.stdout.startswith("hall hall: 2 boards, broker ")
    assert "(copy each to its board)" in en.stdout
    assert "(the hub as a service on this PC, from damiera's checkout)" in en.stdout


def test_hub_init_bridge(tmp_path: Path) -> None:
    hall = tmp_path / "hall"
    made = damiera(ENGLISH, "hub", "init", "--boards", "2", "--dir", str(hall))
    assert made.returncode == 0, made.stderr
    room = ["hub", "init", "--dir", str(hall), "--bridge", "hub.local", "--host", "127.0.0.1"]
    it = damiera(ITALIAN, *room, "--room", "east")
    en = damiera(ENGLISH, *room, "--room", "east", "--force")
    assert it.returncode == en.returncode == 0, (it.stderr, en.stderr)
    assert it.stdout.startswith("stanza east della sala hall: damiere 1-2, broker 127.0.0.1:8883")
    assert "(sul PC della stanza, con questa cartella copiata lì allo stesso percorso)" in it.stdout
    assert en.stdout.startswith("room east of hall hall: boards 1-2, broker 127.0.0.1:8883")
    assert "(copy each to its board)" in en.stdout


@pytest.mark.slow
def test_hub_demo_in_italian(tmp_path: Path) -> None:
    from tests.hall.broker import free_port
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi.cli", "hub", "demo", "--boards", "1", "--dir",
         str(tmp_path / "demo"), "--http", f"127.0.0.1:{port}", "--speed", "50"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        env=environment(ITALIAN))
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                break
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = "".join(lines)
    assert proc.returncode == 0, err
    assert text.startswith("sala di 1 damiera in "), text
    # the two addresses aligned under the longer label
    assert f"  pagina della sala:    http://127.0.0.1:{port}/\n" in text
    assert f"  console dell'arbitro: http://127.0.0.1:{port}/arbiter " in text
    assert "Ctrl-C ferma le damiere" in text
    assert "fermato; le repliche sono in " in rest
