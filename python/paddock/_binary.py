"""Where the paddock binary is: $PADDOCK_BIN, else `paddock` on PATH, else next to this package
(an installed copy's `paddock/bin/paddock`, or a source checkout's `build/paddock`)."""

import os
import shutil

from .exceptions import PaddockNotFoundError

_HERE = os.path.dirname(os.path.abspath(__file__))

HOW_TO_INSTALL = (
    "Install paddock from its repository: run scripts/setup there (it installs what paddock "
    "needs from Debian and builds build/paddock), then `sudo cmake --install build` to put it "
    "on PATH, or set PADDOCK_BIN=/path/to/build/paddock")


def _beside_package():
    yield os.path.join(_HERE, "bin", "paddock")
    # A source checkout: python/paddock/ beside build/.
    yield os.path.normpath(os.path.join(_HERE, os.pardir, os.pardir, "build", "paddock"))


def _runnable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_paddock(explicit=None):
    """The path of the paddock binary, or PaddockNotFoundError saying how to install it."""
    if explicit:
        if _runnable(explicit):
            return os.path.abspath(explicit)
        raise PaddockNotFoundError(
            "paddock_bin=%r is not an executable file. %s" % (explicit, HOW_TO_INSTALL))
    from_env = os.environ.get("PADDOCK_BIN")
    if from_env:
        if _runnable(from_env):
            return os.path.abspath(from_env)
        raise PaddockNotFoundError(
            "PADDOCK_BIN=%r is not an executable file. %s" % (from_env, HOW_TO_INSTALL))
    on_path = shutil.which("paddock")
    if on_path:
        return on_path
    for candidate in _beside_package():
        if _runnable(candidate):
            return candidate
    raise PaddockNotFoundError(
        "the paddock binary was not found (PADDOCK_BIN is not set, there is no `paddock` on "
        "PATH, and none beside the package in %s). %s" % (_HERE, HOW_TO_INSTALL))
