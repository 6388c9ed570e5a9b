"""The exception tree: one root, documented classes, a drawing that matches the code."""

from __future__ import annotations

import inspect

import sysdrill.errors as errors


def _classes() -> list[type[BaseException]]:
    return [
        obj
        for _, obj in inspect.getmembers(errors, inspect.isclass)
        if issubclass(obj, BaseException) and obj.__module__ == errors.__name__
    ]


def test_every_error_derives_from_the_root():
    for cls in _classes():
        assert issubclass(cls, errors.SysdrillError), cls


def test_every_error_is_exported_and_documented():
    names = {cls.__name__ for cls in _classes()}
    assert names == set(errors.__all__)
    for cls in _classes():
        assert cls.__doc__ and cls.__doc__.strip(), cls


def test_module_docstring_draws_every_class():
    doc = errors.__doc__ or ""
    for cls in _classes():
        assert cls.__name__ in doc, f"{cls.__name__} missing from the tree in errors.py"
