"""The build backend of llm-sandbox-compat: paddock's (python/backend/paddock_backend.py, two
folders up in the checkout), pointed at this distribution, whose import package (llm_sandbox)
is not named after it. A wheel, or `pip install` from the checkout, builds; an sdist would need
paddock's backend beside it and is not made."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(os.path.dirname(ROOT), "backend"))

import paddock_backend as _base  # noqa: E402

_base.ROOT = ROOT
_base.PACKAGE = "llm_sandbox"

get_requires_for_build_wheel = _base.get_requires_for_build_wheel
get_requires_for_build_editable = _base.get_requires_for_build_editable
build_wheel = _base.build_wheel
build_editable = _base.build_editable
