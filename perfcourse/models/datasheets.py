"""What the datasheet promises: a table of GPU vendor figures, each row naming its source.

``datasheet(name)`` looks a GPU up (memory bandwidth, dense fp32/fp16/bf16 rates, SM count,
L2 size); the name may be the one the driver reports (``"NVIDIA H200"``,
``"NVIDIA A100-SXM4-80GB"``). Peak figures assume a particular dtype, instruction, clock and a
large, well-aligned problem; measured ceilings (``pc.hardware.measure_ceilings()``) are what
predictions should use. This module reads a table only: it knows no device and measures nothing.

Examples
--------
>>> d = datasheet("NVIDIA H200")
>>> d.name, d.memory_bandwidth / 1e12, d.peak_flops("bf16") / 1e12, d.sms
('H200', 4.8, 989.0, 132)
>>> datasheet("NVIDIA A100-SXM4-80GB").name, datasheet("Tesla T4").peak_flops("bf16") is None
('A100 80GB SXM', True)
>>> datasheet("Some Future GPU", quiet=True) is None
True
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

__all__ = ["Datasheet", "table", "datasheet", "names"]

_RATE_KEYS = {"fp32": "fp32", "float32": "fp32", "fp16": "fp16", "float16": "fp16", "bf16": "bf16",
              "bfloat16": "bf16", "fp8": "fp8"}


@dataclass(frozen=True)
class Datasheet:
    """One GPU's vendor figures, in SI units (bytes/s, FLOP/s, bytes).

    ``fp16``/``bf16`` are dense Tensor Core rates with FP32 accumulation; ``bf16`` is None
    where the hardware has no bfloat16. ``source`` names the documents the row comes from.
    """

    name: str
    memory_bandwidth: float
    fp32: float
    fp16: float
    bf16: float | None
    sms: int
    l2_bytes: int
    memory_bytes: float
    source: str
    compute_capability: tuple[int, int] | None = None
    fp8: float | None = None                # dense fp8 Tensor Core rate, where the row gives it
    host_bandwidth: float | None = None     # the host link (PCIe), bytes/s each way
    nvlink_bandwidth: float | None = None   # NVLink, bytes/s both directions together
    match: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def peak_flops(self, dtype="fp32"):
        """Datasheet FLOP/s for ``dtype`` (fp32/float32, fp16/float16, bf16/bfloat16, fp8); None if absent."""
        if dtype not in _RATE_KEYS:
            raise ValueError(f"dtype must be one of {', '.join(_RATE_KEYS)}; got {dtype!r}")
        return getattr(self, _RATE_KEYS[dtype])

    def ridge_point(self, dtype="fp32"):
        """Intensity (FLOP/byte) where this datasheet's compute roof meets its memory roof."""
        peak = self.peak_flops(dtype)
        return None if peak is None else peak / self.memory_bandwidth

    def matches(self, device_name):
        """True when every ``match`` token and no ``exclude`` token is in the device name."""
        tokens = set(_tokens(device_name))
        return all(t in tokens for t in self.match) and not tokens & set(self.exclude)


def _tokens(name):
    return re.findall(r"[a-z0-9]+", name.lower())


@functools.cache
def table():
    """All datasheet rows, from ``models/data/datasheets.json`` in the package."""
    text = resources.files(__package__).joinpath("data", "datasheets.json").read_text(encoding="utf-8")
    rows = []
    for row in json.loads(text)["devices"]:
        row = dict(row, match=tuple(row["match"]), exclude=tuple(row["exclude"]),
                   compute_capability=tuple(row["compute_capability"]) if row.get("compute_capability") else None)
        rows.append(Datasheet(**row))
    return tuple(rows)


def names():
    """Names of the GPUs in the table.

    Examples
    --------
    >>> "H100 PCIe" in names() and "RTX 3090" in names()
    True
    """
    return [d.name for d in table()]


def datasheet(name, *, quiet=False):
    """The :class:`Datasheet` for a GPU name, or None (with a printed reason unless ``quiet``).

    The table's own names match exactly (case and spaces ignored); otherwise the row whose
    tokens all appear in ``name`` wins, the most specific row first.

    Examples
    --------
    >>> datasheet("h100 pcie").name, datasheet("NVIDIA H100 80GB HBM3").name
    ('H100 PCIe', 'H100 SXM')
    >>> datasheet("NVIDIA L4").name, datasheet("NVIDIA L40S").name, datasheet("NVIDIA A10").name
    ('L4', 'L40S', 'A10')
    """
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name must be a non-empty device name string; got {name!r}")
    key = "".join(_tokens(name))
    for d in table():
        if "".join(_tokens(d.name)) == key:
            return d
    found = sorted((d for d in table() if d.matches(name)), key=lambda d: -len(d.match))
    if found:
        return found[0]
    if not quiet:
        print(f"No datasheet for {name!r}: the table knows {', '.join(names())}. "
              f"Only measured ceilings are available for it.")
    return None
