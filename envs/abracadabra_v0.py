"""``abracadabra_v0`` is replaced by :mod:`envs.abracadabra_v1`.

v1 appended the ``voids`` segment to the observation (755 -> 771 columns); everything
else is unchanged (the version history is in :mod:`envs.abracadabra_v1`). As in
PettingZoo, the old version's constructors remain and say what to use instead.
"""

from __future__ import annotations


class DeprecatedEnv(ImportError):
    """An environment version that was replaced by a newer one."""


def _replaced(*args, **kwargs):
    raise DeprecatedEnv("abracadabra_v0 is deprecated: its observation gained the 'voids' "
                        "segment (755 -> 771 columns). Use envs.abracadabra_v1 "
                        "(from envs import abracadabra_v1; abracadabra_v1.env(...)).")


env = raw_env = _replaced
