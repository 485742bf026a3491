"""Widget snapshots for the static site: each widget view replaced by its controls' values and outputs.

Execution stores every widget's state in the notebook's metadata; :func:`static_widgets` reads
it back, so a page shows each widget's first figure and text without a kernel or any
JavaScript from the network.
"""

from __future__ import annotations

import html

from .._lang import _

__all__ = ["WIDGET_STATE", "WIDGET_VIEW", "static_widgets"]

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _walk(model_id, state, controls, outputs):
    """Collect the (description, value) of controls, and as outputs: what Output widgets hold, the PNG
    of Image widgets and the text of HTML widgets, in the order they appear under a widget."""
    model = state.get(model_id)
    if model is None:
        return
    s, name = model.get("state", {}), model.get("model_name")
    if name == "OutputModel":
        outputs.extend(s.get("outputs", []))
    elif name == "ImageModel":
        png = next((b.get("data") for b in model.get("buffers", []) if b.get("path") == ["value"]), None)
        if png and s.get("format", "png") == "png":
            outputs.append({"output_type": "display_data", "metadata": {}, "data": {"image/png": png}})
    elif name in ("HTMLModel", "HTMLMathModel") and not s.get("description"):
        if s.get("value"):
            outputs.append({"output_type": "display_data", "metadata": {}, "data": {"text/html": s["value"]}})
    elif "value" in s and s.get("description"):
        controls.append((s["description"], s["value"]))
    for child in s.get("children", []):
        _walk(child.removeprefix("IPY_MODEL_"), state, controls, outputs)


def static_widgets(nb, lang="en"):
    """Replace each widget view in ``nb`` by a snapshot: its controls' values and its stored outputs.

    The site then shows every widget's first figure and text without a kernel or any
    JavaScript from the network.
    """
    import nbformat

    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if not view:
                kept.append(output)
                continue
            controls, inner = [], []
            _walk(view.get("model_id", ""), state, controls, inner)
            shown = ", ".join(f"{html.escape(str(d))} = {html.escape(str(v))}" for d, v in controls)
            note = "<p><em>" + _("Interactive figure, shown at its starting values ({shown}). Run the notebook to "
                                 "move the controls.", lang).format(shown=shown) + "</em></p>"
            kept.append(nbformat.v4.new_output("display_data", data={"text/html": note}))
            kept.extend(nbformat.from_dict(o) for o in inner)
        cell.outputs = kept
    nb.metadata.pop("widgets", None)    # every view is a snapshot now: no widget manager to load
    return nb
