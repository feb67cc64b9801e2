"""Card-game environments for reinforcement learning.

- :mod:`envs.abracadabra_v1` — Abracadabra (bid tricks, hit the declarer's target) as a
  PettingZoo AEC environment.
- :mod:`envs.four_aces_v0` — Four Aces (draw and discard, collect combinations).

The rules engines (:mod:`envs.abracadabra`, :mod:`envs.four_aces`) keep their state in
numpy arrays with a leading batch axis (Four Aces plays its turns and writes its
observations in compiled numba loops over those arrays) and import no RL framework;
``from envs import abracadabra_v1`` loads the PettingZoo adapter.
"""

__all__ = ["abracadabra_v1", "four_aces_v0"]
