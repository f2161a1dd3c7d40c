"""Neural network layers, the functional API and parameter initialisation."""

from .modules import *  # noqa: F403
from .parameter import Parameter as Parameter
from . import functional as functional
from . import init as init


def factory_kwargs(kwargs):
    """Collect ``device``/``dtype`` (and an explicit ``factory_kwargs`` dict) for layer constructors."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")

    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(
                    f"{k} specified twice, in **kwargs and in factory_kwargs"
                )
            r[k] = kwargs[k]
    return r
