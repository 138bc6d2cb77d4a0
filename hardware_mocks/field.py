"""The magnetic field under an analog Hall board: pieces with magnets, one DRV5055-class sensor
per square, and what the ADC reads from it — set no kinder than the parts' datasheets.

- **Magnet** (:class:`MagnetSpec`): a disc magnetised along its axis, 25 × 2 mm N35
  (Br 1.17–1.21 T), each piece's strength ±10 % (drawn afresh at every place: over a game a
  square sees the whole spread), −0.12 %/°C (NdFeB). White men north up, black south up.
  The field is that of a uniformly magnetised cylinder (two charged discs), integrated over the
  disc, so a piece off the sensor's axis and a neighbour's magnet are computed, not guessed.
- **Piece** (:class:`Geometry`): put down up to ``off_centre`` (2 mm) from the square's
  centre; a king is a second man stacked on it, ``piece_height`` higher and up to
  ``king_off_centre`` (3 mm) off the lower man.
- **Sensor** (:class:`SensorSpec`, DRV5055A4 at 3.3 V): output VCC/2 + S·B, ratiometric;
  quiescent voltage ±60 mV, sensitivity 7.5 mV/mT ±8 %, linear to ±180 mT then clipped,
  input-referred noise 130 nT/√Hz over its 20 kHz bandwidth (23 µT rms), sensitivity
  compensation +0.12 %/°C (cancelling the magnet's drift to within ±0.02 %/°C per part),
  offset drift up to ±5 µT/°C per part; each part mounted ``depth`` ±0.3 mm.
- **ADC** (12 bits of the same VCC): ±1 LSB integral non-linearity per channel, 0.5 LSB rms
  transition noise, quantisation.

:class:`FieldModel` holds the board's parts and pieces; ``code(square)`` is one conversion (with
noise), ``mean_code(square)`` its expectation (for the benchmark's margins). ``rng``: a seeded
``random.Random`` so a run can be repeated.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine.board import Piece
from engine.colour import WHITE
from engine.squares import parse_square

#: mT per T.
MT = 1000.0


@dataclass(frozen=True)
class MagnetSpec:
    diameter: float = 25.0  # mm
    thickness: float = 2.0  # mm
    br: float = 1190.0  # mT (N35: 1170..1210)
    spread: float = 0.10  # ± fraction, per piece
    tempco: float = -0.0012  # per °C


@dataclass(frozen=True)
class Geometry:
    pitch: float = 40.0  # mm between square centres
    depth: float = 5.0  # mm from the Hall element to a man's magnet (surface + piece base)
    depth_spread: float = 0.3  # ± mm per sensor (board thickness, soldering)
    piece_height: float = 5.0  # mm between the magnets of a king's two men
    off_centre: float = 2.0  # mm, a piece put down off the square's centre
    king_off_centre: float = 3.0  # mm, the top man off the lower one


@dataclass(frozen=True)
class SensorSpec:
    vcc: float = 3.3
    sensitivity: float = 7.5  # mV/mT at 3.3 V (DRV5055A4)
    sensitivity_spread: float = 0.08  # ± fraction
    vq_spread: float = 0.060  # ± V around VCC/2
    noise: float = 0.023  # mT rms, input-referred (130 nT/√Hz × √(20 kHz·π/2))
    linear: float = 180.0  # ± mT, clipped beyond
    stc: float = 0.0012  # per °C, the sensitivity's compensation of the magnet's drift
    stc_spread: float = 0.0002  # ± per °C, what is left of it per part
    offset_drift: float = 0.005  # ± mT per °C per part
    adc_inl: float = 1.0  # ± LSB per channel
    adc_noise: float = 0.5  # LSB rms


@dataclass
class Sensor:
    """One part as built: its quiescent code, gain, depth, drifts and the ADC channel's INL."""

    vq: float  # V
    gain: float  # × nominal sensitivity
    depth: float  # mm
    stc: float  # per °C
    drift: float  # mT per °C
    inl: float  # LSB
    linear: float  # mT


@dataclass
class Magnet:
    x: float
    y: float
    z: float  # mm above the Hall element plane, to the near face
    strength: float  # × Br, signed: + north up (white)


def _disc_points(radius: float, rings: int = 10, spokes: int = 24) -> list[tuple[float, float,
                                                                              float]]:
    """Midpoint quadrature of a disc: (x, y, area)."""
    out = []
    dr = radius / rings
    for i in range(rings):
        r = (i + 0.5) * dr
        area = 2 * math.pi * r * dr / spokes
        for j in range(spokes):
            a = 2 * math.pi * (j + 0.5) / spokes
            out.append((r * math.cos(a), r * math.sin(a), area))
    return out


class FieldModel:
    """Sensors on ``squares`` (physical names of a ``size`` board) and the pieces on them."""

    def __init__(self, squares: Iterable[str], size: int, *, rng: random.Random | None = None,
                 magnet: MagnetSpec = MagnetSpec(), geometry: Geometry = Geometry(),
                 sensor: SensorSpec = SensorSpec()) -> None:
        self.size = size
        self.rng = rng or random.Random(40)
        self.magnet = magnet
        self.geometry = geometry
        self.sensor = sensor
        self.temperature = 25.0  # °C, calibration at 25
        self._points = _disc_points(magnet.diameter / 2)
        self._unit: dict[tuple[float, float], float] = {}
        self.positions: dict[str, tuple[float, float]] = {}
        self.sensors: dict[str, Sensor] = {}
        for sq in squares:
            f, r = parse_square(sq, size)
            self.positions[sq] = (f * geometry.pitch, r * geometry.pitch)
            self.sensors[sq] = self._new_sensor()
        self.pieces: dict[str, Piece] = {}
        self._magnets: dict[str, list[Magnet]] = {}
        self.hovering: list[Magnet] = []
        self._mean: dict[str, float] = {}

    def _new_sensor(self) -> Sensor:
        s, g, rng = self.sensor, self.geometry, self.rng
        return Sensor(vq=s.vcc / 2 + rng.uniform(-s.vq_spread, s.vq_spread),
                      gain=1 + rng.uniform(-s.sensitivity_spread, s.sensitivity_spread),
                      depth=rng.uniform(-g.depth_spread, g.depth_spread),
                      stc=s.stc + rng.uniform(-s.stc_spread, s.stc_spread),
                      drift=rng.uniform(-s.offset_drift, s.offset_drift),
                      inl=rng.uniform(-s.adc_inl, s.adc_inl), linear=s.linear)

    # -- faults a builder makes -----------------------------------------------------------------
    def set_sensor(self, square: str, **changes: float) -> None:
        """Changes one part (``gain=0.7``: a sensitivity 30 % low; ``linear=85``: an A3 part
        that clips a king; ``depth=+3``: mounted 3 mm deeper)."""
        self.sensors[square] = replace(self.sensors[square], **changes)
        self._mean.clear()

    # -- pieces ---------------------------------------------------------------------------------
    def put(self, square: str, piece: Piece) -> None:
        """A piece put down on ``square`` (physical), a new magnet drawn for each man."""
        x0, y0 = self.positions[square]
        g, m, rng = self.geometry, self.magnet, self.rng
        sign = 1.0 if piece.color == WHITE else -1.0

        def man(x: float, y: float, z: float) -> Magnet:
            return Magnet(x, y, z, sign * (1 + rng.uniform(-m.spread, m.spread)))
        dx, dy = _offset(rng, g.off_centre)
        magnets = [man(x0 + dx, y0 + dy, g.depth)]
        if piece.king:
            kx, ky = _offset(rng, g.king_off_centre)
            magnets.append(man(x0 + dx + kx, y0 + dy + ky, g.depth + g.piece_height))
        self.pieces[square] = piece
        self._magnets[square] = magnets
        self._mean.clear()

    def remove(self, square: str) -> Piece | None:
        self._magnets.pop(square, None)
        self._mean.clear()
        return self.pieces.pop(square, None)

    def crown(self, square: str) -> None:
        """A second man of the same colour stacked on the man of ``square``."""
        piece = self.pieces[square]
        if piece.king:
            raise ValueError(f"{square} is a king already")
        g, m, rng = self.geometry, self.magnet, self.rng
        low = self._magnets[square][0]
        kx, ky = _offset(rng, g.king_off_centre)
        sign = 1.0 if piece.color == WHITE else -1.0
        self._magnets[square].append(Magnet(low.x + kx, low.y + ky, g.depth + g.piece_height,
                                            sign * (1 + rng.uniform(-m.spread, m.spread))))
        self.pieces[square] = Piece(piece.color, True)
        self._mean.clear()

    def uncrown(self, square: str) -> None:
        """The top man of the king on ``square`` lifted off."""
        piece = self.pieces[square]
        if not piece.king:
            raise ValueError(f"{square} is not a king")
        self._magnets[square].pop()
        self.pieces[square] = Piece(piece.color, False)
        self._mean.clear()

    def hover(self, square: str, piece: Piece, height: float) -> None:
        """A hand holds ``piece`` ``height`` mm above the surface of ``square`` (until
        :meth:`clear_hover`)."""
        x, y = self.positions[square]
        sign = 1.0 if piece.color == WHITE else -1.0
        z = self.geometry.depth + self.geometry.piece_height + height
        self.hovering.append(Magnet(x, y, z, sign))
        if piece.king:
            self.hovering.append(Magnet(x, y, z + self.geometry.piece_height, sign))
        self._mean.clear()

    def clear_hover(self) -> None:
        self.hovering.clear()
        self._mean.clear()

    def set_temperature(self, celsius: float) -> None:
        self.temperature = celsius
        self._mean.clear()

    # -- the field and the codes ----------------------------------------------------------------
    def _unit_field(self, dx: float, dy: float, z: float) -> float:
        """Bz (mT) per unit strength at lateral offset (dx, dy) mm, the near face ``z`` mm up.
        The field is symmetric about the magnet's axis: computed per (distance, height),
        integrated over the disc up to six radii (a diagonal neighbour included) and a dipole's
        beyond, where it is under 0.3 % of a man's field."""
        rho = math.hypot(dx, dy)
        radius = self.magnet.diameter / 2
        if rho > 6 * radius:
            zc = z + self.magnet.thickness / 2
            r2 = rho * rho + zc * zc
            volume = math.pi * radius * radius * self.magnet.thickness
            return float(self.magnet.br * volume / (4 * math.pi) * (3 * zc * zc - r2) / r2 ** 2.5)
        key = (round(rho, 1) if rho < 2 * radius else round(rho * 2) / 2, round(z, 2))
        value = self._unit.get(key)
        if value is None:
            za, zb = key[1], key[1] + self.magnet.thickness
            total = 0.0
            for px, py, area in self._points:
                rho2 = (key[0] - px) ** 2 + py * py
                total += area * (za / (rho2 + za * za) ** 1.5 - zb / (rho2 + zb * zb) ** 1.5)
            value = self.magnet.br * total / (4 * math.pi)
            self._unit[key] = value
        return value

    def field(self, square: str) -> float:
        """Bz in mT at the sensor of ``square`` (every magnet within two squares)."""
        x, y = self.positions[square]
        sensor = self.sensors[square]
        reach = 2.5 * self.geometry.pitch
        drift = 1 + self.magnet.tempco * (self.temperature - 25.0)
        total = 0.0
        for magnets in (*self._magnets.values(), self.hovering):
            for mg in magnets:
                if abs(mg.x - x) > reach or abs(mg.y - y) > reach:
                    continue
                total += mg.strength * self._unit_field(mg.x - x, mg.y - y, mg.z + sensor.depth)
        return total * drift

    def mean_code(self, square: str) -> float:
        """The expected ADC code of ``square`` (no noise, no quantisation)."""
        value = self._mean.get(square)
        if value is None:
            s, spec = self.sensors[square], self.sensor
            dt = self.temperature - 25.0
            b = self.field(square) + s.drift * dt
            b = max(-s.linear, min(s.linear, b))
            volts = s.vq + spec.sensitivity / MT * s.gain * (1 + s.stc * dt) * b
            value = volts / spec.vcc * 4096 + s.inl
            self._mean[square] = value
        return value

    def noise_codes(self, square: str) -> float:
        """The rms noise of one conversion, in codes."""
        s, spec = self.sensors[square], self.sensor
        sensor = spec.noise * spec.sensitivity / MT * s.gain / spec.vcc * 4096
        return math.hypot(sensor, spec.adc_noise)

    def code(self, square: str) -> int:
        """One conversion of ``square``'s channel: 0..4095."""
        value = self.mean_code(square) + self.rng.gauss(0.0, self.noise_codes(square))
        return max(0, min(4095, int(round(value))))


def _offset(rng: random.Random, radius: float) -> tuple[float, float]:
    """A point uniformly spread over a disc of ``radius`` mm."""
    r = radius * math.sqrt(rng.random())
    a = rng.uniform(0, 2 * math.pi)
    return r * math.cos(a), r * math.sin(a)


__all__ = ["FieldModel", "Geometry", "MagnetSpec", "SensorSpec"]
