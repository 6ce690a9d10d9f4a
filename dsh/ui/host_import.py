"""The view's import in a host process, less what a host never runs before its first frame.

Two parts of the import chain are left out, each through a mechanism the import system documents:

- asyncio's TLS support. asyncio imports `ssl` (7-14 ms here) inside `try: ... except ImportError`,
  and a name mapped to None in `sys.modules` makes `import` raise ModuleNotFoundError (the Python
  reference, "The module cache"). The None is there only while asyncio is imported: a host talks
  over Unix sockets only, so its asyncio has no TLS, and any later `import ssl` works as usual.
- prompt_toolkit's package `__init__`, which imports `prompt_toolkit.shortcuts` (PromptSession,
  dialogs, progress bars, and the widgets they are built of) to offer them at the top level. dsh
  imports the submodules it uses by name and none of those. The package module is made from its
  spec (`importlib.util.module_from_spec`) and put in `sys.modules` without its `__init__` being run;
  importing a submodule needs only the package's `__path__`, which the spec gives. `complete()` runs
  the `__init__` later (after the first frame) in that same module, so that from then on the package
  is what any import makes it (for a `from prompt_toolkit import PromptSession` anywhere).

Both are skipped when the module is already imported (a host forked by the spawner, a test run).
"""

from __future__ import annotations

import importlib.util
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

# Packages put in sys.modules without running their __init__, to be completed: name -> spec.
_bare: dict[str, ModuleSpec] = {}


def import_view() -> None:
    """Import what a host runs (`dsh.ui.remote`), the lean way described above."""
    _bare_package("prompt_toolkit")
    _import_without("asyncio", "ssl")
    import dsh.ui.remote  # noqa: F401  (here: only once the packages above are put in bare)


def complete() -> None:
    """Run the `__init__` of each package `import_view` left bare (idempotent)."""
    while _bare:
        name, spec = _bare.popitem()
        module = sys.modules.get(name)
        if module is not None and spec.loader is not None:
            spec.loader.exec_module(module)


def bare_packages() -> list[str]:
    """The packages whose `__init__` has not run yet."""
    return sorted(_bare)


def _bare_package(name: str) -> None:
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not a package found on disk: imported as usual
    sys.modules[name] = importlib.util.module_from_spec(spec)
    _bare[name] = spec


def _import_without(name: str, left_out: str) -> None:
    """Import `name` while `left_out` cannot be imported (only when neither is imported yet)."""
    if name in sys.modules or left_out in sys.modules:
        return
    sys.modules[left_out] = None  # type: ignore[assignment]  # the import system's way to refuse a name
    try:
        importlib.import_module(name)
    finally:
        del sys.modules[left_out]
