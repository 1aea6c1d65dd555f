"""The pages' Jinja environment answers ``a.b`` exactly as Jinja's own does, dict or not."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jinja2
from hypothesis import given
from hypothesis import strategies as st

from app.template_env import TemplateEnvironment
from app.web import templates

JINJA = jinja2.Environment(autoescape=True)
OURS = TemplateEnvironment(autoescape=True)

#: Names a template might ask a dict for: its keys, dict's own attributes, and others.
names = st.sampled_from(
    ["x", "name", "piece", "items", "get", "keys", "copy", "__class__", "__len__"]
) | st.text(max_size=6)


def same(found: Any, expected: Any) -> bool:
    if isinstance(expected, jinja2.Undefined):
        return (
            type(found) is type(expected)
            and found._undefined_name == expected._undefined_name
            and found._undefined_obj is expected._undefined_obj
        )
    if callable(expected) and hasattr(expected, "__self__"):  # a bound method: made anew each time
        return found == expected
    return found is expected


@given(keys=st.dictionaries(names, st.integers()), name=names)
def test_a_dict_gives_what_jinjas_getattr_gives(keys: dict[str, int], name: str) -> None:
    for obj in (keys, OrderedDict(keys)):  # a subclass may have attributes of its own: Jinja's way
        assert same(OURS.getattr(obj, name), JINJA.getattr(obj, name))


def test_a_key_named_like_a_dict_method_still_gives_the_method_and_other_objects_are_untouched() -> None:
    point = {"items": 3, "x": 1}
    assert OURS.getattr(point, "items") == point.items  # as in Jinja: the attribute first
    assert OURS.getattr(point, "x") == 1
    listed = [1, 2]
    assert OURS.getattr(listed, "append") == listed.append
    missing = OURS.getattr(point, "y")
    assert isinstance(missing, jinja2.Undefined) and str(missing) == ""


def test_the_pages_render_through_it() -> None:
    assert isinstance(templates.env, TemplateEnvironment)
    assert templates.env.autoescape is not False
    rendered = templates.env.from_string("{{ p.x }}{{ p.name }}{{ p.missing }}").render(
        p={"x": 1, "name": "<a>"}
    )
    assert rendered == "1&lt;a&gt;"
