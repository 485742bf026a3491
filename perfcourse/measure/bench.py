"""``perfcourse bench``: this machine's measured ceilings beside its datasheet.

Examples
--------
>>> si(4.31e12, "B/s"), si(7.4e-7, "s"), si(989e12, "FLOP/s")
('4.31 TB/s', '740 ns', '989 TFLOP/s')
"""

from __future__ import annotations

from .._lang import _, pad, phrase, rpad, width
from ..units import format_bytes, si

__all__ = ["rows", "report"]

_DATASHEET_KEY = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def rows(ceilings, sheet=None):
    """Table rows ``(figure, measured, datasheet, percent)`` as strings."""
    def row(label, measured, peak, unit):
        pct = f"{100 * measured / peak:.1f}%" if measured and peak else "-"
        return label, si(measured, unit), si(peak, unit), pct

    bw = sheet.memory_bandwidth if sheet else None
    out = [row(_("memory bandwidth, copy (2N counted)"), ceilings.copy_bandwidth, bw, "B/s"),
           row(_("memory bandwidth, triad (3N counted)"), ceilings.triad_bandwidth, bw, "B/s")]
    for dtype, rate in ceilings.matmul_flops.items():
        n = ceilings.matmul_sizes[dtype]
        peak = sheet.peak_flops(_DATASHEET_KEY[dtype]) if sheet and dtype in _DATASHEET_KEY else None
        out.append(row(f"matmul {dtype} ({n}^3)", rate, peak, "FLOP/s"))
    if ceilings.backend == "cupy":
        out.append(row(_("kernel launch, back to back"), ceilings.launch_s, None, "s"))
        out.append(row(_("kernel launch + synchronize"), ceilings.launch_sync_s, None, "s"))
    else:
        out.append(row(_("one small NumPy call"), ceilings.launch_s, None, "s"))
    return out


def report(ceilings, sheet=None):
    """The bench table as text, with a header naming the device and the datasheet's source (in the learner's
    language, the figures as they are)."""
    cols = 4 if sheet else 2   # no datasheet: measured figures only
    head = (_("figure"), _("measured"), _("datasheet"), _("{percent} of datasheet").format(percent="%"))
    table = [r[:cols] for r in [head] + rows(ceilings, sheet)]
    widths = [max(width(r[i]) for r in table) for i in range(cols)]
    lines = ["  ".join(pad(cell, w) if i == 0 else rpad(cell, w) for i, (cell, w) in
                       enumerate(zip(r, widths, strict=True))) for r in table]
    lines.insert(1, "-" * width(lines[0]))
    lines.insert(0, _("device: {device} ({backend}), measured {date}").format(
        device=ceilings.device, backend=ceilings.backend, date=ceilings.when))
    stream = _("STREAM arrays: {n:,} {dtype} elements each").format(n=ceilings.stream_elements,
                                                                   dtype=ceilings.stream_dtype)
    if ceilings.cache_bytes:
        stream += _(" (last-level cache {size})").format(size=format_bytes(ceilings.cache_bytes))
    lines.append(stream)
    if sheet:
        lines.append(_("datasheet: {name}; source: {source}").format(name=sheet.name, source=phrase(sheet.source)))
    lines += [_("note: {note}").format(note=n) for n in ceilings.notes]
    return "\n".join(lines)
