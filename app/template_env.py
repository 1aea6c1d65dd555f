"""The pages' Jinja environment: Jinja's own, with a cheaper ``a.b`` on plain dicts."""

from __future__ import annotations

from typing import Any

import jinja2

#: What ``getattr`` finds on a plain dict: its type's attributes (a dict instance has no
#: ``__dict__``, so nothing else).
_DICT_ATTRIBUTES = frozenset(dir(dict))


class TemplateEnvironment(jinja2.Environment):
    """``a.b`` in a template is ``Environment.getattr(a, "b")``: Python's ``getattr``
    first, then ``a["b"]``. On a plain dict the first step always raised
    ``AttributeError`` before the lookup that succeeds. The board points are dicts, so a
    Morris view raised 302 exceptions for its 346 lookups, 12 % of its render (1.28 →
    1.12 ms, docs/benchmarks.md).

    This gives the same answers: for a plain dict, ``getattr`` succeeds exactly for
    dict's own attribute names (``items``, ``get``, …), which still go to Jinja's way;
    any other name is the key or, missing, the same undefined value Jinja makes.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def environment(directory: str) -> TemplateEnvironment:
    """The environment Starlette's ``Jinja2Templates(directory=…)`` would make, of this class."""
    return TemplateEnvironment(
        loader=jinja2.FileSystemLoader(directory), autoescape=jinja2.select_autoescape()
    )
