"""The engines' fuzz: random play with the rules' invariants checked after every step.

Imports nothing above ``envs``. :mod:`envs.fuzz.cases` lists the configurations (every
variant and player count, crossed with the options that change the rules' paths);
:mod:`envs.fuzz.abracadabra` and :mod:`envs.fuzz.four_aces` are the invariant checkers,
each a vectorised reference of its game's rules driven by the record of the play;
:mod:`envs.fuzz.runner` plays a case. ``tests/envs/test_fuzz.py`` runs a bounded fuzz in
``make test``; ``cardrl fuzz`` runs the long one (``results/fuzz.md``).
"""

from envs.fuzz.cases import FuzzCase, all_cases, fuzzed_games
from envs.fuzz.checks import InvariantViolation
from envs.fuzz.runner import CHECKERS, CaseResult, Violation, run_case

__all__ = [
    "CHECKERS",
    "CaseResult",
    "FuzzCase",
    "InvariantViolation",
    "Violation",
    "all_cases",
    "fuzzed_games",
    "run_case",
]
