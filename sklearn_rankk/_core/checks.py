"""The parameter checks that need no numpy (cut-offs, reals, options,
gain maps, booleans): the metric requests and the command line's measure
names are validated here without importing numpy, so that the command line
starts as fast as trec_eval. :mod:`.validation` holds every other check
and re-exports these.
"""

from __future__ import annotations

import math
import numbers
import sys

#: The largest cut-off: beyond, k would not be exact in float64 (P@k divides
#: by it), and every row is shorter anyway.
MAX_K = 2**53


def is_bool(x):
    """Whether ``x`` is a bool, Python's or numpy's (numpy's can only exist
    once numpy is imported)."""
    if isinstance(x, bool):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.bool_)


def describe(x):
    """``x`` as messages show it: its type and its repr."""
    return f"{type(x).__name__} {x!r}"


def check_k(k, *, allow_none, metric, name="k", none_ok_for=()):
    """A cut-off: an integer in [1, MAX_K], or None where ``allow_none``.

    ``none_ok_for`` names the metrics that accept None, for the message.
    """
    if k is None:
        if allow_none:
            return None
        also = (
            f"; it is only accepted by {', '.join(none_ok_for)}" if none_ok_for else ""
        )
        raise ValueError(
            f"k=None (the whole ranking) is not accepted by {metric}{also}. Pass "
            f"an integer k >= 1."
        )
    if is_bool(k) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1; got {describe(k)}.")
    if k < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {k}.")
    if k > MAX_K:
        raise ValueError(
            f"{name} must be an integer between 1 and 2**53 "
            f"({MAX_K}); got {k}, more than any row could hold."
        )
    return int(k)


def check_option(value, name, options):
    for opt in options:
        if value is opt or (isinstance(value, str) and value == opt):
            return value
    shown = ", ".join(repr(o) for o in options)
    raise ValueError(f"{name} must be one of {shown}; got {value!r}.")


def check_option_or_callable(value, name, options):
    """One of ``options``, or a callable (kept as it is)."""
    if callable(value) and not isinstance(value, str):
        return value
    try:
        return check_option(value, name, options)
    except ValueError:
        shown = ", ".join(repr(o) for o in options)
        raise ValueError(
            f"{name} must be one of {shown} or a callable; got {value!r}."
        ) from None


def check_gain_map(value, name="gains"):
    """A gain map: None, a callable, or a mapping of finite grades to finite
    gains, returned as a tuple of ``(grade, gain)`` float pairs by grade."""
    if value is None or (callable(value) and not isinstance(value, type)):
        return value
    if not hasattr(value, "items"):
        raise TypeError(
            f"{name} must be a mapping of grades to gains (e.g. {{1: 3.5, 2: 9}}), "
            f"a callable of the grade, or None; got {describe(value)}."
        )
    pairs = []
    for grade, gain in value.items():
        for what, x in (("grade", grade), ("gain", gain)):
            if not isinstance(x, numbers.Real) or is_bool(x) or not math.isfinite(x):
                raise ValueError(
                    f"{name} maps grades to gains, both finite real numbers; got "
                    f"the {what} {x!r} in {{{grade!r}: {gain!r}}}."
                )
        if grade < 0:
            raise ValueError(
                f"{name}: grade {grade!r} is negative; a negative grade means "
                f"'not judged' and has no gain."
            )
        pairs.append((float(grade), float(gain)))
    return tuple(sorted(pairs))


def check_bool(value, name):
    if not is_bool(value):
        raise TypeError(f"{name} must be True or False; got {describe(value)}.")
    return bool(value)


def check_real(
    value, name, *, low=None, low_inclusive=True, high=None, high_inclusive=False
):
    if is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {describe(value)}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}.")
    if low is not None and (value < low or (value == low and not low_inclusive)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {op} {low}; got {value}.")
    if high is not None and (value > high or (value == high and not high_inclusive)):
        op = "<=" if high_inclusive else "<"
        raise ValueError(f"{name} must be {op} {high}; got {value}.")
    return value
