# paddock: starts figure capture (paddock_plots) when the code imports matplotlib.pyplot, and
# costs nothing otherwise. Kept this small because every python start compiles it (no bytecode
# is written in the sandbox): the capture itself is compiled only by programs that plot.
import sys


class _PyplotImportHook:
    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.pyplot":
            return None
        sys.meta_path.remove(self)
        import paddock_plots

        return paddock_plots.find_spec(name, path, target, self)


sys.meta_path.insert(0, _PyplotImportHook())
