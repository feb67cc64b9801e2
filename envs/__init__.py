"""Card-game environments for reinforcement learning.

- :mod:`envs.abracadabra_v1` — Abracadabra (bid tricks, hit the declarer's target) as a
  PettingZoo AEC environment.
- :mod:`envs.four_aces_v0` — Four Aces (draw and discard, collect combinations).

The rules engines (:mod:`envs.abracadabra`, :mod:`envs.four_aces`) keep their state in
numpy arrays with a leading batch axis (Four Aces plays its turns and writes its
observations in compiled numba loops over those arrays) and import no RL framework;
``from envs import abracadabra_v1`` loads the PettingZoo adapter.

Importing :mod:`envs` registers every environment id (:data:`ENV_IDS`) in PettingZoo's
registry (PettingZoo >= 1.27), so that

>>> import envs, pettingzoo                                           # doctest: +SKIP
>>> env = pettingzoo.make("aec", "cardgames/abracadabra_v1", variant="three")  # doctest: +SKIP

works with nothing else imported. It does so without importing PettingZoo (nor gymnasium
or numpy): if PettingZoo is loaded already the ids are registered at once, otherwise the
moment it is imported (a one-shot import hook, :class:`_RegisterWhenImported`). The ids
and the options each takes are listed in docs/environments.md.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from envs import registry as _registry

__all__ = ["ENV_IDS", "abracadabra_v1", "four_aces_v0"]

#: PettingZoo AEC id -> entry point (``"module:env"``, the wrapped environment), one per
#: game of :mod:`envs.registry`: ``cardgames/abracadabra_v1``, ``cardgames/four_aces_v0``
ENV_IDS: dict[str, str] = {
    f"cardgames/{_registry.get(game).env_module.rpartition('.')[2]}":
        f"{_registry.get(game).env_module}:env"
    for game in _registry.GAMES
}

#: the top-level module whose import triggers the registration
_PETTINGZOO = "pettingzoo"


def _register_ids(pettingzoo: ModuleType) -> None:
    """Register every id of :data:`ENV_IDS` that ``pettingzoo`` (the loaded module) does not
    hold yet; nothing on a PettingZoo without a registry (before 1.27)."""
    register, spec = getattr(pettingzoo, "register", None), getattr(pettingzoo, "spec", None)
    if register is None or spec is None:
        return
    for env_id, entry_point in ENV_IDS.items():
        try:
            spec("aec", env_id)  # already registered (by an earlier call): keep it
        except Exception:  # noqa: BLE001 - PettingZoo's NameNotFound, NamespaceNotFound …
            register("aec", env_id, entry_point=entry_point)


class _RegisterWhenImported:
    """A meta-path finder that watches for one import, of PettingZoo: it lets the other
    finders find the module, and registers the ids (:func:`_register_ids`) right after the
    module has run; then it leaves ``sys.meta_path``. It finds nothing itself, so every
    other import goes by as if it were not there."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        """PettingZoo's own spec, its loader set to register the ids once it has run;
        None for every other module."""
        if fullname != _PETTINGZOO:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            found = find(fullname, path, target)
            if found is not None:
                break
        else:
            return None
        loader = found.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return found
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            try:
                run(module)
            finally:
                del loader.exec_module  # the loader's own method again
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _register_ids(module)

        loader.exec_module = exec_module  # this one loader (a fresh object per find)
        return found


def _install() -> None:
    """Register now if PettingZoo is loaded, else when it is imported."""
    loaded = sys.modules.get(_PETTINGZOO)
    if loaded is not None:
        _register_ids(loaded)
    elif not any(isinstance(f, _RegisterWhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWhenImported())


_install()
