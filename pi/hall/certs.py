"""The hall's certificates (``damiera hub init``, docs/organiser.md, "Security"): its own
certificate authority (``hall-ca.crt``, ``hall-ca.key``) and the broker's certificate signed by
it (``broker.crt``, ``broker.key``), made with ``openssl``. Boards and hub trust only this CA."""

from __future__ import annotations

import ipaddress
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Protocol

from pi.hall.errors import HallInitError

__all__ = ["CertHall", "make_certs", "CA_FILE", "CERT_DAYS"]

#: The hall's CA certificate, copied beside every board's configuration.
CA_FILE = "hall-ca.crt"
#: Days the broker's certificate (and, ten times that, the CA's) is valid.
CERT_DAYS = 825


class CertHall(Protocol):
    """What :func:`make_certs` reads of a hall (``pi.hall.hub_init.Hall``)."""

    @property
    def dir(self) -> Path: ...

    @property
    def host(self) -> str: ...

    @property
    def hall(self) -> str: ...


def make_certs(hall: CertHall) -> list[Path]:
    """The hall's CA and the broker's certificate for ``hall.host`` (and localhost, 127.0.0.1,
    ::1), made with ``openssl`` (EC P-256) in a private temporary folder, then moved into
    ``hall.dir``; keys mode 0600. Raises HallInitError (no openssl), OSError or
    SubprocessError."""
    tool = shutil.which("openssl")
    if tool is None:
        raise HallInitError("openssl is not installed: it makes the hall's TLS certificates "
                            "(Debian's openssl package), or give --plain-mqtt")
    try:
        ip = ipaddress.ip_address(hall.host)
        names = [f"IP:{ip}"]
    except ValueError:
        names = [f"DNS:{hall.host}"]
    names += [n for n in ("DNS:localhost", "IP:127.0.0.1", "IP:::1") if n not in names]
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    with tempfile.TemporaryDirectory(dir=hall.dir) as tmp:
        t = Path(tmp)

        def run(*args: str) -> None:
            subprocess.run([tool, *args], cwd=t, check=True, capture_output=True, timeout=60)
        run("req", "-x509", *ec, "-keyout", "hall-ca.key", "-out", CA_FILE,
            "-days", str(CERT_DAYS * 10), "-subj", f"/CN=damiera hall {hall.hall} CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        run("req", "-new", *ec, "-keyout", "broker.key", "-out", "broker.csr",
            "-subj", f"/CN={hall.host}")
        (t / "ext").write_text(f"subjectAltName={','.join(names)}\nbasicConstraints=CA:FALSE\n"
                               "keyUsage=critical,digitalSignature\n"
                               "extendedKeyUsage=serverAuth\n", encoding="ascii")
        run("x509", "-req", "-in", "broker.csr", "-CA", CA_FILE, "-CAkey", "hall-ca.key",
            "-set_serial", f"0x{secrets.token_hex(16)}", "-days", str(CERT_DAYS),
            "-extfile", "ext", "-out", "broker.crt")
        out = []
        for name, mode in ((CA_FILE, 0o644), ("hall-ca.key", 0o600), ("broker.crt", 0o644),
                           ("broker.key", 0o600)):
            os.chmod(t / name, mode)
            os.replace(t / name, hall.dir / name)
            out.append(hall.dir / name)
        return out
