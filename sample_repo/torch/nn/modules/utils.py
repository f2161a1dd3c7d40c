"""Small argument-normalisation helpers for layers."""

import collections.abc
from itertools import repeat
from typing import Any, Callable, List, Tuple

__all__: List[str] = []


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], Tuple]:
    """Return a converter that turns a scalar into an ``n``-tuple.

    Iterables (except strings, which the conv layers use for 'same'/'valid')
    are passed through as tuples.
    """

    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Tuple[int, ...], n: int) -> Tuple[int, ...]:
    """Reverse ``t`` and repeat every element ``n`` times.

    ``F.pad`` wants padding for the last dimension first, each side given
    separately: (1, 2) with n=2 becomes (2, 2, 1, 1).
    """
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: List[Any], defaults: List[int]) -> List[int]:
    """Replace ``None`` entries of ``out_size`` by the matching trailing default."""
    if isinstance(out_size, int):
        return [out_size]
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[-len(out_size):]
    return [d if v is None else v for v, d in zip(out_size, tail)]
