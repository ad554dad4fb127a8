"""Sphinx configuration of bgengine's API reference (built from the docstrings).

    python -m sphinx -W -b html docs/api build/api-html
"""

from __future__ import annotations

import os

# Document the compiled modules themselves, not their .pyi stubs: Sphinx would otherwise put
# the stub in sys.modules, and the Python modules that import compiled classes would get
# stub objects (which cannot run) instead.
os.environ["SPHINX_AUTODOC_IGNORE_NATIVE_MODULE_TYPE_STUBS"] = "1"

import bgengine  # noqa: E402

project = "bgengine"
version = release = bgengine.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"]
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# A numpydoc "Attributes" section as :ivar: fields, not a second description of each
# dataclass field that autodoc documents as a member.
napoleon_use_ivar = True
default_role = "py:obj"
nitpicky = False
exclude_patterns = ["_build"]
html_theme = "alabaster"
# The top-level face re-exports the classes of the submodules (bgengine.Network is
# bgengine.core.network.Network), so a short name has two targets: either is right.
suppress_warnings = ["ref.python"]


def _skip_reexports(app, what, name, obj, skip, options):
    """A package's re-exported names (``bgengine.Engine``, ``bgengine.training.train``) are
    documented once, in the module that defines them."""
    module = app.env.temp_data.get("autodoc:module")
    defined_in = getattr(obj, "__module__", None)
    if what == "module" and module and isinstance(defined_in, str) and defined_in != module:
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_reexports)
