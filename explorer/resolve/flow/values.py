"""The abstract values of the Python value-flow solver.

One value stands for every runtime object it abstracts: all instances of a class are one
Instance, every dict a given line makes is one Container. Each is a small frozen record,
hashable, compared by type and fields (two records of different types never compare equal).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.model import Key


@dataclass(frozen=True, slots=True)
class Function:
    """A function, method or lambda of the tree, by the qualified name the index gives it and
    the line of its `def` (a name defined twice, in two branches, is two functions). A closure
    that a call of a factory made says which call (`made`, that call's context): its free
    names are what that call bound, not what every call of the factory did."""

    qname: str
    line: int
    made: str | None = None


@dataclass(frozen=True, slots=True)
class Class:
    qname: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class Instance:
    """Every instance of a class of the tree."""

    cls: str


@dataclass(frozen=True, slots=True)
class BoundMethod:
    """`obj.m` for a method: calling it passes `receiver` as the first argument."""

    function: Function
    receiver: Instance | Class


@dataclass(frozen=True, slots=True)
class Module:
    name: str


@dataclass(frozen=True, slots=True)
class External:
    """A name from outside what the solver reads (another package, a `.pyi` stub, the
    torch._C bindings), by the dotted path it was imported under."""

    dotted: str


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str


@dataclass(frozen=True, slots=True)
class Container:
    """The dicts, lists, tuples or sets one expression makes; `site` tells them apart."""

    kind: str  # dict, list, tuple, set
    site: Key


@dataclass(frozen=True, slots=True)
class Constant:
    type: str  # str, int, float, bool, None
    value: str | None = None  # a short string's text


@dataclass(frozen=True, slots=True)
class TensorValue:
    """Any torch.Tensor: what operators, bindings and tensor methods return."""


@dataclass(frozen=True, slots=True)
class TensorMethod:
    """`x.softmax` on a tensor: calling it runs the operator (or binding) of that name."""

    name: str


@dataclass(frozen=True, slots=True)
class Generator:
    """What calling a generator function returns; iterating it gives what it yields."""

    function: Function
    context: str | None


@dataclass(frozen=True, slots=True)
class Partial:
    """`functools.partial(f, ...)`: calling it calls f."""

    function: object  # a callable value


@dataclass(frozen=True, slots=True)
class SuperObject:
    """`super()` in a method of `cls`, for `receiver`: attributes come after cls in its MRO."""

    cls: str
    receiver: Instance | Class


@dataclass(frozen=True, slots=True)
class Property:
    """A `@property` of a class: reading it calls the getter."""

    getter: object  # a callable value


@dataclass(frozen=True, slots=True)
class ClassMethod:
    function: object


@dataclass(frozen=True, slots=True)
class StaticMethod:
    function: object


@dataclass(frozen=True, slots=True)
class ContainerMethod:
    """`d.items`, `xs.append`: a method of a container the solver models."""

    container: Container
    name: str


@dataclass(frozen=True, slots=True)
class BuiltinMethod:
    """`"-".join`, `s.upper`: a method of a str, int, float or bytes value."""

    type: str
    name: str


@dataclass(frozen=True, slots=True)
class ObjectSetattr:
    """`object.__setattr__` (or `super().__setattr__` reaching object's): stores a field."""

    receiver: Instance | None


@dataclass(frozen=True, slots=True)
class AutogradApply:
    """`Fn.apply` of a torch.autograd.Function subclass: calling it runs `Fn.forward`."""

    cls: str


@dataclass(frozen=True, slots=True)
class Identity:
    """What `functools.wraps(fn)` returns: a decorator that gives back what it is handed."""


TENSOR = TensorValue()
IDENTITY = Identity()
