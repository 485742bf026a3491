"""Plain-data values between the grader and a learner's kernel: JSON with a few tagged forms.

Only data crosses: ``None``, booleans, integers, finite floats and strings as themselves;
lists as JSON arrays; and one-key objects for the rest: ``{"$f": "nan"|"inf"|"-inf"}``,
``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}``, ``{"$array": {"dtype", "shape",
"data"}}`` (bool, int64 or float64), ``{"$func": {...}}`` (a function the grader describes
by its parameters, rebuilt on the other side) and ``{"$other": "type name"}`` (a value of any
other type, which no answer matches). Never objects, never pickles.

:func:`decode` checks every form strictly and raises :class:`WireError` on anything else;
:func:`loads` refuses text longer than its limit before parsing it. This module imports
nothing of perfcourse: the kernel loads it on its own, beside the runner.

Examples
--------
>>> text = dumps(encode((1, 2.5, float("nan"), {"a": [None, True]})))
>>> text
'{"$tuple": [1, 2.5, {"$f": "nan"}, {"$dict": [["a", [null, true]]]}]}'
>>> decode(loads(text, 1000))[3]
{'a': [None, True]}
"""

from __future__ import annotations

import json
import math
import numbers

__all__ = ["WireError", "Opaque", "encode", "decode", "dumps", "loads", "FUNCTION_KINDS"]

MAX_DEPTH = 32
MAX_DIMS = 8
DTYPES = ("bool", "int64", "float64")


class WireError(ValueError):
    """A message or value that is not one of the allowed plain-data forms."""


class Opaque:
    """Stands for a value of a type that cannot cross (a kernel's object): it equals no answer."""

    def __init__(self, type_name):
        self.type_name = str(type_name)[:80]

    def __repr__(self):
        return f"<a {self.type_name} object>"


def _knee(floor, per_item, knee):
    def latency(b):
        return floor + per_item * max(b - knee, 0)
    return latency


# "$func" kinds: name -> (parameter names, builder). Rebuilt where the learner's code runs.
FUNCTION_KINDS = {"knee": (("floor", "per_item", "knee"), _knee)}


def _float(x):
    return x if math.isfinite(x) else {"$f": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def encode(value, *, lenient=False, _depth=0):
    """The plain-data form of ``value``.

    Strict (the grader's inputs): an unsupported type raises ``TypeError``. Lenient (a
    learner's results): numbers and array-likes are converted, anything else becomes
    ``{"$other": type name}``.
    """
    if _depth > MAX_DEPTH:
        raise WireError(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    kind = type(value).__module__ + "." + type(value).__name__
    if kind == "numpy.bool_" or kind == "numpy.bool":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return _float(float(value))
    down = _depth + 1
    if isinstance(value, list):
        return [encode(v, lenient=lenient, _depth=down) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, lenient=lenient, _depth=down) for v in value]}
    if isinstance(value, dict):
        return {"$dict": [[encode(k, lenient=lenient, _depth=down), encode(v, lenient=lenient, _depth=down)]
                          for k, v in value.items()]}
    if kind == "numpy.ndarray":
        return _encode_array(value, lenient, down)
    if callable(getattr(value, "__wire__", None)) and not lenient:
        return {"$func": value.__wire__()}
    if lenient:
        return _encode_other(value, down)
    raise TypeError(f"a {type(value).__name__} cannot be sent to a kernel")


def _encode_array(value, lenient, depth):
    if value.dtype.kind in "biuf" and value.ndim <= MAX_DIMS:
        dtype = {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}[value.dtype.kind]
        flat = value.ravel().tolist()
        data = [_float(x) for x in flat] if dtype == "float64" else flat
        return {"$array": {"dtype": dtype, "shape": list(value.shape), "data": data}}
    if not lenient:
        raise TypeError(f"an array of dtype {value.dtype} cannot be sent to a kernel")
    return encode(value.tolist(), lenient=True, _depth=depth)


def _encode_other(value, depth):
    """A learner's value of another type: through ``__array__`` when it has one, else opaque."""
    import numpy as np

    if hasattr(value, "__array__"):
        array = np.asarray(value)
        if array.dtype.kind != "O":
            return _encode_array(array, True, depth)
    return {"$other": type(value).__name__}


def _decode_array(body, depth):
    if not isinstance(body, dict) or set(body) != {"dtype", "shape", "data"}:
        raise WireError("an $array needs exactly dtype, shape and data")
    dtype, shape, data = body["dtype"], body["shape"], body["data"]
    if dtype not in DTYPES or not isinstance(shape, list) or len(shape) > MAX_DIMS or not isinstance(data, list):
        raise WireError("an $array has a bad dtype, shape or data")
    if not all(type(n) is int and n >= 0 for n in shape) or math.prod(shape) != len(data):
        raise WireError("an $array's shape does not match its data")
    scalar = {"bool": (bool,), "int64": (int,), "float64": (int, float)}[dtype]
    values = [decode(x, _depth=depth) if isinstance(x, dict) and dtype == "float64" else x for x in data]
    if not all(type(v) in scalar or (dtype == "float64" and type(v) is float) for v in values):
        raise WireError(f"an $array of {dtype} holds other values")
    import numpy as np

    try:
        return np.array(values, dtype=dtype).reshape(shape)
    except (OverflowError, ValueError) as err:
        raise WireError(f"an $array cannot be built: {err}") from None


def _decode_tagged(tag, body, depth, functions):
    if tag == "$f" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "$tuple" and isinstance(body, list):
        return tuple(decode(v, functions=functions, _depth=depth) for v in body)
    if tag == "$dict" and isinstance(body, list):
        if not all(isinstance(kv, list) and len(kv) == 2 for kv in body):
            raise WireError("a $dict holds [key, value] pairs")
        pairs = [(decode(k, _depth=depth), decode(v, functions=functions, _depth=depth)) for k, v in body]
        try:
            return dict(pairs)
        except TypeError:
            raise WireError("a $dict key must be hashable (a number, string, None or tuple)") from None
    if tag == "$array":
        return _decode_array(body, depth)
    if tag == "$other" and isinstance(body, str):
        return Opaque(body)
    if tag == "$func" and functions and isinstance(body, dict) and body.get("kind") in FUNCTION_KINDS:
        names, build = FUNCTION_KINDS[body["kind"]]
        if set(body) != {"kind", *names} or not all(type(body[n]) in (int, float) for n in names):
            raise WireError(f"a $func of kind {body['kind']} needs the numbers {', '.join(names)}")
        return build(*(body[n] for n in names))
    raise WireError(f"unknown or malformed form {tag!r}")


def decode(obj, *, functions=False, _depth=0):
    """The value that the plain-data form ``obj`` (as ``json.loads`` returns it) stands for.

    ``functions``: accept ``$func`` forms (the kernel, reading the grader's inputs); the
    grader reads results without it.
    """
    if _depth > MAX_DEPTH:
        raise WireError(f"nested deeper than {MAX_DEPTH} levels")
    if obj is None or type(obj) in (bool, int, str):
        return obj
    if type(obj) is float:
        if not math.isfinite(obj):
            raise WireError("a bare non-finite float")
        return obj
    if type(obj) is list:
        return [decode(v, functions=functions, _depth=_depth + 1) for v in obj]
    if type(obj) is dict and len(obj) == 1:
        tag, body = next(iter(obj.items()))
        return _decode_tagged(tag, body, _depth + 1, functions)
    raise WireError(f"a {type(obj).__name__} that is not one of the allowed forms")


def _no_constants(name):
    raise WireError(f"the JSON constant {name} is not allowed")


def dumps(message):
    """One line of JSON (no NaN or Infinity literals)."""
    return json.dumps(message, allow_nan=False, ensure_ascii=True)


def loads(text, limit):
    """Parse one message of at most ``limit`` characters; :class:`WireError` on anything else."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a decoded line); got {type(text).__name__}")
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a whole number of characters >= 1; got {limit!r}")
    if len(text) > limit:
        raise WireError(f"a message longer than {limit} bytes")
    try:
        return json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as err:
        raise WireError(f"not valid JSON ({type(err).__name__})") from None
