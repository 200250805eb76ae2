# paddock: captures matplotlib figures as PNG (and SVG) files without the code doing anything
# special: at plt.show(), at savefig(), and every figure still open at exit. The files land in
# $PADDOCK_PLOTS_DIR, which paddock returns as artifacts. Nothing is printed. Imported by
# sitecustomize only when the code imports matplotlib.pyplot.
import atexit
import os
import sys

_PLOTS = os.environ.get("PADDOCK_PLOTS_DIR", "/work/.paddock/plots")
_FORMATS = [f for f in os.environ.get("PADDOCK_PLOT_FORMATS", "png").split(",")
            if f in ("png", "svg")] or ["png"]
_state = {"count": 0, "captured": set(), "savefig": None}


def _capture(figure):
    """Writes one figure in every format asked for, once per figure."""
    if id(figure) in _state["captured"] or _state["savefig"] is None:
        return
    _state["captured"].add(id(figure))
    try:
        os.makedirs(_PLOTS, exist_ok=True)
        _state["count"] += 1
        for fmt in _FORMATS:
            path = os.path.join(_PLOTS, "figure-%d.%s" % (_state["count"], fmt))
            _state["savefig"](figure, path, format=fmt)
    except Exception:  # capture must never break the user's program
        pass


def _capture_open_figures(pyplot):
    for number in pyplot.get_fignums():
        _capture(pyplot.figure(number))


def _patch(pyplot):
    from matplotlib.figure import Figure

    original_savefig = Figure.savefig
    _state["savefig"] = original_savefig

    def savefig(self, *args, **kwargs):
        result = original_savefig(self, *args, **kwargs)
        _capture(self)
        return result

    def show(*args, **kwargs):
        # With the Agg backend show() would only warn: capture and close instead.
        _capture_open_figures(pyplot)
        pyplot.close("all")

    Figure.savefig = savefig
    pyplot.show = show
    atexit.register(_capture_open_figures, pyplot)


def find_spec(name, path, target, skip):
    """The spec of matplotlib.pyplot from the finders after `skip`, made to patch the module
    right after it runs; None when no finder has it."""
    for finder in sys.meta_path:
        if finder is skip or not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            break
    else:
        return None
    exec_module = spec.loader.exec_module

    def exec_and_patch(module):
        exec_module(module)
        _patch(module)

    spec.loader.exec_module = exec_and_patch
    return spec
