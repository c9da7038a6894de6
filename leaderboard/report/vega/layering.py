"""Layer charts put together as dictionaries from the layers Altair builds (:func:`layered`).

Altair stays the builder of every layer (marks, encodings, transforms, selections); only the
layer chart around them, whose ``LayerChart`` copies every layer several times, is assembled
here, as Altair's ``to_dict`` would give it.
"""
from __future__ import annotations

import inspect
from collections.abc import Sequence

import altair as alt
from altair.utils.schemapi import Undefined
from altair.vegalite.v6.schema import core

from leaderboard.report.vega.common import Chart


def layered(*layers: alt.Chart, **properties) -> dict:
    """The layer chart of ``layers`` with ``properties`` (``width``, ``height``...) as a
    dictionary, as ``alt.layer(*layers).properties(**properties).to_dict()`` gives it.

    Altair's ``LayerChart`` deep-copies every layer (more than once: to hoist shared data, to
    lift each layer's selections to the top, at ``properties`` and at ``to_dict``), about a third
    of the time a page's charts took. Here each layer is turned into its dictionary by Altair
    once and Altair builds the top level around no layers; what the ``LayerChart`` does to the
    layers is done the same way: data all layers share (the same object) moves to the top, and a
    layer's one selection moves to the top with the layer named as Altair names it (the hash of
    its content and its place). Layers Altair would treat otherwise (nested charts, sizes or
    facets set on a layer, several selections) are left to Altair. Tested: the same pages, byte
    for byte (benchmarks/bench_chart_build.py).
    """
    if not _plain_layers(layers):
        return alt.layer(*layers, **properties).to_dict(validate=False)
    shared = layers[0].data
    hoist = shared is not Undefined and all(layer.data is shared for layer in layers)
    parts, params = [], []
    # what Altair's LayerChart.to_dict tells its layers (the shared data, once at the top)
    context = {"datasets": {}, "top_level": False, "pre_transform": False,
               **({"data": shared} if hoist else {})}
    for i, layer in enumerate(layers):
        part = layer.copy(deep=False) if hoist or layer.params is not Undefined else layer
        if layer.params is not Undefined:
            view = f"{layer._compute_hash()}_{i}"
            (param,) = layer.params
            params.append(core.TopLevelSelectionParameter(
                **param.to_dict(validate=False), views=[view]).to_dict(validate=False))
            part.name, part.params = view, Undefined
        if hoist:
            part.data = Undefined
        parts.append(part.to_dict(validate=False, context=context))
    top = alt.LayerChart(layer=[], data=shared if hoist else Undefined,
                         **properties).to_dict(validate=False)
    top["layer"] = parts
    return _with_params(top, params) if params else top


def _with_params(top: dict, params: list[dict]) -> dict:
    """``top`` with ``params`` in the place Altair gives them (a LayerChart given its
    selections validates each against the whole schema: ~5 ms)."""
    keys = list(inspect.signature(core.TopLevelLayerSpec.__init__).parameters)
    later = {*keys[keys.index("params") + 1:], "$schema"}
    out: dict = {}
    for key, value in top.items():
        if key in later and "params" not in out:
            out["params"] = params
        out[key] = value
    out.setdefault("params", params)
    return out


def _plain_layers(layers: Sequence) -> bool:
    """Single-view layers whose layering :func:`layered` does as Altair does: no size, view or
    facet set on a layer, unnamed, and one selection at most in all."""
    selections = 0
    for layer in layers:
        if type(layer) not in (alt.Chart, Chart) or layer.name is not Undefined:
            return False
        if any(layer._kwds.get(k, Undefined) is not Undefined
               for k in ("width", "height", "view")):
            return False
        encoding = layer.encoding
        if encoding is not Undefined and any(
                getattr(encoding, k, Undefined) is not Undefined
                for k in ("row", "column", "facet")):
            return False
        if layer.params is not Undefined:
            if len(layer.params) != 1 or not isinstance(layer.params[0], core.SelectionParameter):
                return False
            selections += 1
    return selections <= 1
