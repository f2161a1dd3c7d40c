"""Tables keyed by an enum that every member must be in: a layer a renderer has no style for
would be a KeyError in the middle of an answer (mypy cannot see a dict's keys)."""

from __future__ import annotations

from explorer.model import Layer
from explorer.render import dot, text


def test_every_layer_has_a_style_in_text_and_in_diagrams():
    assert set(text.LAYER_STYLES) == set(Layer)
    assert set(dot.LAYER_STYLES) == set(Layer)
