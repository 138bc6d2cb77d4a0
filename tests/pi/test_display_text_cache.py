"""The OLED draws each text once (``pi.drivers.display.TextCache``): the frame must be PIL's own,
pixel for pixel, whatever the text, the fraction of a pixel it starts at, the font and the ink;
a text drawn again (from the memory) must be the same as the first time. Property tests
(hypothesis) against ``ImageDraw.text`` and ``textlength`` themselves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.drivers.display import MESSAGE_SIZES, TEXT_CACHE, BoardDisplay, TextCache

TEXTS = st.text(alphabet=st.sampled_from(list("0123456789:.-x hmovewhitblackFLAG;()+ajy,_")),
                max_size=24)
XY = st.tuples(st.floats(0, 120, allow_nan=False), st.floats(0, 60, allow_nan=False))


def _fonts() -> dict[int, object]:
    from hardware_mocks.display import dummy_oled
    d = BoardDisplay(dummy_oled())
    return {10: d.small, 18: d.large, **d.fonts}


FONTS = _fonts()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXTS, XY, st.sampled_from(sorted(FONTS)), st.sampled_from([0, 1])),
                min_size=1, max_size=6),
       st.sampled_from(["1", "L"]))
def test_a_text_drawn_once_is_the_text_pil_draws(texts: list[tuple[str, tuple[float, float],
                                                                   int, int]],
                                                  mode: str) -> None:
    from PIL import Image, ImageDraw
    cache = TextCache()
    for _ in range(2):  # the second frame from the memory
        ours, pils = Image.new(mode, (128, 64), 0), Image.new(mode, (128, 64), 0)
        d_ours, d_pils = ImageDraw.Draw(ours), ImageDraw.Draw(pils)
        d_ours.rectangle((20, 10, 80, 40), fill=1)
        d_pils.rectangle((20, 10, 80, 40), fill=1)
        for text, xy, size, fill in texts:
            font = FONTS[size]
            cache.draw(d_ours, xy, text, font, fill)
            d_pils.text(xy, text, font=font, fill=fill)
            assert cache.length(d_ours, text, font) == d_pils.textlength(text, font=font)
        assert ours.tobytes() == pils.tobytes()


def test_the_memory_is_bounded() -> None:
    from PIL import Image, ImageDraw
    cache = TextCache()
    draw = ImageDraw.Draw(Image.new("1", (128, 64)))
    font = FONTS[MESSAGE_SIZES[0]]
    for n in range(3 * TEXT_CACHE):
        cache.draw(draw, (0.0, 0.0), str(n), font, 1)
        assert len(cache) <= 2 * TEXT_CACHE
    assert len(cache) > 0
