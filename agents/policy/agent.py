"""``PolicyAgent``: a trained policy behind the agent interface.

>>> agent = agents.make("policy", "abracadabra")                      # doctest: +SKIP
>>> agent = agents.make("policy", "four_aces", path="runs/x/policy.pt")  # doctest: +SKIP

A policy is a checkpoint file (:mod:`agents.policy.checkpoint`: plain tensors and
metadata, read without running code; an SB3 ``.zip`` or a version-1 file only with
``trust_pickle=True``). Without a path the agent loads the committed defaults
``agents/checkpoints/<game>_<variant>.pt``; the table's keyword of the environment loads
only that one: ``variant=`` for Abracadabra (``variant="three"``), ``num_players=`` for
Four Aces (``num_players=4``, the same as ``variant="4p"``):

>>> agent = agents.make("policy", "four_aces", num_players=4)          # doctest: +SKIP

A policy plays only the configurations it was trained for: every observation row is
routed by the variant it shows (its first, one-hot segment: Abracadabra's ``variant``,
Four Aces' ``num_players``) to the network trained for that variant, and a row of a
variant no loaded checkpoint was trained for is a ``ValueError`` naming the variant, the
checkpoints there are and how to train one. torch is imported only when a PolicyAgent is
built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.four_aces.symmetry import to_game_order
from agents.policy.checkpoint import (  # the format's API, also imported from here
    FORMAT,
    VERSION,
    build_net,
    check_checkpoint,
    load_checkpoint,
    make_checkpoint,
    save_checkpoint,
)
from agents.policy.delegate import delegated, make_delegate, network_rows
from agents.policy.features import reads_width
from envs import registry

__all__ = ["FORMAT", "VERSION", "BidderAgent", "PolicyAgent", "build_net", "check_checkpoint",
           "default_checkpoints", "load_checkpoint", "make_checkpoint", "observed_variants",
           "save_checkpoint", "table_variant", "variant_key"]

CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
#: the repository's training configs, named ``<game>_<variant key>.yaml`` (for the hints)
CONFIG_DIR = CHECKPOINT_DIR.parent.parent / "configs"

#: the config that trains each committed default (for the error message): the games'
#: ``policy_config``
TRAIN_HINT = registry.Declared("policy_config")


class _VariantKeys(Mapping):
    """game -> the variant keys, in the order of the observation's first (one-hot)
    segment: the names (``Game.table_key``) of the choices of the game's table option
    (Abracadabra's variants, docs/rules.md section A; Four Aces' player counts, G1)."""

    def __init__(self):
        self._known: dict[str, tuple] = {}  # game -> (its descriptor, its keys)

    def __getitem__(self, game: str) -> tuple[str, ...]:
        if game not in registry.GAMES:
            raise KeyError(game)
        descriptor = registry.get(game)
        known = self._known.get(game)
        if known is None or known[0] is not descriptor:
            option = descriptor.table_option
            known = self._known[game] = (descriptor, tuple(
                descriptor.table_name(**{option: choice})
                for choice in descriptor.tables.get(option, ())))
        return known[1]

    def __iter__(self):
        return iter(registry.GAMES)

    def __len__(self) -> int:
        return len(registry.GAMES)


VARIANT_KEYS = _VariantKeys()


def default_checkpoints(game: str, variant: str | None = None) -> list[Path]:
    """The committed default checkpoints of ``game`` (of ``variant`` if given)."""
    if variant is not None:
        path = CHECKPOINT_DIR / f"{game}_{variant}.pt"
        return [path] if path.exists() else []
    return sorted(p for p in CHECKPOINT_DIR.glob(f"{game}*.pt")
                  if p.stem == game or p.stem.startswith(game + "_"))


def variant_key(game: str, options: dict) -> str:
    """The variant a checkpoint was trained for: Abracadabra's ``variant`` or Four Aces'
    player count (the other options do not change what a seat sees or may do)."""
    return registry.get(game).table_name(**options)


def describe_variant(game: str, key: str) -> str:
    """A variant key as the config option that selects it: ``variant='two'``,
    ``num_players=3``."""
    descriptor = registry.get(game)
    option = descriptor.table_option
    for choice in descriptor.tables.get(option, ()):
        if descriptor.table_name(**{option: choice}) == key:
            return f"{option}={choice!r}"
    return f"{option}={key!r}"


def table_variant(game: str, variant: str | None = None,
                  num_players: int | None = None) -> str | None:
    """The variant key chosen by the environment's own keywords: ``variant=`` (Abracadabra's
    ``"four"`` …, or a key such as ``"4p"``), or for Four Aces ``num_players=`` (``4`` is
    ``"4p"``); None when neither is given. ``num_players`` for Abracadabra (whose table is
    its ``variant``), out of range, or naming another table than ``variant`` is a
    ``ValueError``."""
    keys = VARIANT_KEYS.get(game, ())
    if variant is not None and variant not in keys:
        raise ValueError(f"variant={variant!r} is not a variant of {game}: expected one of "
                         f"{list(keys)}")
    if num_players is None:
        return variant
    if registry.get(game).table_option != "num_players":
        raise ValueError(f"num_players={num_players!r} does not choose a {game} table: "
                         f"expected variant= (one of {list(keys)})")
    key = registry.get(game).table_name(num_players=num_players)
    if (isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer))
            or key not in keys):
        raise ValueError(f"num_players={num_players!r} is not a table of {game}: expected "
                         f"one of {list(registry.get(game).tables['num_players'])}")
    if variant is not None and variant != key:
        raise ValueError(f"variant={variant!r} and num_players={num_players!r} name two "
                         f"different {game} tables: expected one of them (num_players="
                         f"{num_players} is variant={key!r})")
    return key


def train_hint(game: str, key: str | None = None) -> str:
    """How to train and commit a policy for ``game`` (variant ``key``), for error messages."""
    config = f"configs/{game}_{key}.yaml"
    if key is None or not (CONFIG_DIR / f"{game}_{key}.yaml").exists():
        config = TRAIN_HINT.get(game, "configs/<name>.yaml")
        if key is not None:  # the recipe of the table, set to this one
            setting = describe_variant(game, key).replace("'", "")
            config += f" --set options.{setting}"
    target = f"{game}_{key}.pt" if key is not None else f"{game}_<variant>.pt"
    return (f"train one with `cardrl train --config {config} --out runs/NAME` and copy "
            f"runs/NAME/policy.pt to agents/checkpoints/{target}, or pass path=... to "
            f"agents.make('policy', ...)")


def observed_codes(game: str, observations: np.ndarray) -> np.ndarray:
    """int [N]: the index in ``VARIANT_KEYS[game]`` of every observation row's variant, read
    from its first (one-hot) segment; -1 where that segment has no bit set."""
    segment = np.asarray(observations)[:, :len(VARIANT_KEYS[game])]
    return np.where(segment.any(axis=1), segment.argmax(axis=1), -1)


def observed_variants(game: str, observations: np.ndarray) -> np.ndarray:
    """The variant key of every observation row, read from its first (one-hot) segment:
    Abracadabra's ``variant``, Four Aces' ``num_players``."""
    names = np.array(VARIANT_KEYS[game])
    return names[np.asarray(observations)[:, :len(names)].argmax(axis=1)]


class PolicyAgent(Agent):
    """Acts with a trained network: argmax of the masked logits, or a sample of them.

    Args:
        path: a ``.pt`` checkpoint; None loads the committed defaults. Each observation is
            played by the network trained for its variant (read from the observation); one
            no checkpoint was trained for is a ``ValueError``.
        checkpoint: an in-memory checkpoint dict instead of ``path``.
        sample: sample from the policy instead of taking the most likely action.
        variant: with ``path=None``, load only ``agents/checkpoints/<game>_<variant>.pt``;
            with a ``path`` or ``checkpoint``, refuse one with no network for that table.
        num_players: Four Aces' table as the environment's keyword: ``num_players=4`` is
            ``variant="4p"`` (:func:`table_variant`).
        trust_pickle: also load files that load only by unpickling them (an SB3 ``.zip``,
            a version-1 ``.pt``), which runs any code they name: trusted files only
            (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`).
    """

    summary = "trained policy network (cardrl train); path=None loads the committed default"

    def __init__(self, game: str, path: str | Path | None = None, seed: int | None = None,
                 sample: bool = False, variant: str | None = None,
                 checkpoint: dict | None = None, device: str = "cpu",
                 trust_pickle: bool = False, num_players: int | None = None):
        super().__init__(game, seed)
        variant = table_variant(game, variant, num_players)  # before torch is imported
        import torch

        self.torch = torch
        self.sample = sample
        self.device = device
        if checkpoint is not None:
            candidates, sources = [check_checkpoint(checkpoint, "the checkpoint dict")], [
                "the checkpoint dict"]
        elif path is not None:
            candidates, sources = [load_checkpoint(path, trust_pickle)], [str(path)]
        else:
            paths = self._default_paths(game, variant)
            candidates, sources = [load_checkpoint(p) for p in paths], [str(p) for p in paths]
        for c, source in zip(candidates, sources, strict=True):
            if c["game"] not in (game, "unknown"):
                raise ValueError(f"policy checkpoint {source!r} was trained on {c['game']!r}, "
                                 f"not {game!r}")
        self.checkpoints = candidates
        #: where each checkpoint came from (a path, or "the checkpoint dict")
        self.sources = sources
        self.committed = checkpoint is None and path is None  # the committed defaults
        #: variant key -> index of the net that plays it
        self.routes: dict[str, int] = {}
        for i, c in enumerate(candidates):
            key = variant_key(game, c["options"])
            if key in self.routes:
                raise ValueError(f"policy checkpoints {sources[self.routes[key]]!r} and "
                                 f"{sources[i]!r} were both trained for {game} "
                                 f"{describe_variant(game, key)}; expected one per variant")
            self.routes[key] = i
        if variant is not None and not self.committed and variant not in self.routes:
            raise ValueError(self._unplayable(variant, "the table asked for"))
        # VARIANT_KEYS index (observed_codes) -> net index
        self._code_routes = {VARIANT_KEYS[game].index(k): i for k, i in self.routes.items()
                             if k in VARIANT_KEYS[game]}
        self.nets = [build_net(c).to(device) for c in candidates]
        # the agent making the decisions a net leaves to its delegate (agents/policy/delegate.py)
        self.delegates = [make_delegate(game, c["model"].get("delegate"), seed)
                          for c in candidates]

    @staticmethod
    def _default_paths(game: str, variant: str | None) -> list[Path]:
        """The committed checkpoints to load; ValueError naming what exists and how to train
        one when there is none (for ``variant``)."""
        if variant is not None and variant not in VARIANT_KEYS.get(game, ()):
            raise ValueError(f"variant={variant!r} is not a variant of {game}: expected one "
                             f"of {list(VARIANT_KEYS.get(game, ()))}")
        paths = default_checkpoints(game, variant)
        if not paths:
            have = [p.name for p in default_checkpoints(game)]
            which = f"{game} {describe_variant(game, variant)}" if variant else game
            raise ValueError(
                f"no trained policy for {which} in {CHECKPOINT_DIR} (looked for "
                f"{game}_{variant or '*'}.pt; there are {have or 'none'}): "
                f"{train_hint(game, variant)}")
        return paths

    @property
    def checkpoint(self) -> dict:
        return self.checkpoints[0]

    def _forward(self, net, observations: np.ndarray, masks: np.ndarray):
        """Masked logits of one net in the game's action order; its input (features, a
        suit order) is computed here, on numpy."""
        torch = self.torch
        x, net_masks, action_map = net.encode(observations, masks)
        logits = net.logits(torch.as_tensor(x, device=self.device),
                            torch.as_tensor(net_masks, device=self.device))
        return logits if action_map is None else to_game_order(logits, action_map)

    def _rows_by_net(self, observations: np.ndarray):
        """(net index, row indices) for each net that plays some of the rows: the one
        trained for the row's variant. ValueError for a row of a variant none was trained
        for, or of another observation size."""
        codes = observed_codes(self.game, observations)
        keys = VARIANT_KEYS[self.game]
        # nets in the order of their variant keys' names (the order they draw from self.rng)
        for code in sorted(np.unique(codes), key=lambda c: (c >= 0, keys[c] if c >= 0 else "")):
            if code not in self._code_routes:
                rows = int((codes == code).sum())
                if code < 0:
                    raise ValueError(f"{rows} observation row(s) show no {self.game} variant "
                                     f"(their first, one-hot segment is all zero); expected "
                                     f"observations of {self.game}")
                raise ValueError(self._unplayable(keys[code], f"{rows} observation row(s)"))
            index = self._code_routes[code]
            expected = self.checkpoints[index]["observation_size"]
            if not reads_width(expected, observations.shape[1]):
                raise ValueError(
                    f"observations of shape {list(observations.shape)} for the policy "
                    f"{self.sources[index]!r}; expected [N, {expected}] ({self.game})")
            yield index, np.flatnonzero(codes == code)

    def check_options(self, options: dict) -> None:
        """ValueError naming the configuration, the checkpoints there are and how to train
        one if no network of this policy was trained for the table of ``options`` (the
        game's config fields, e.g. ``{"num_players": 3}``): lets a caller refuse before any
        game is played."""
        key = variant_key(self.game, options)
        if key not in self.routes:
            raise ValueError(self._unplayable(key, "the table"))

    def _unplayable(self, key: str, what: str) -> str:
        """The message for ``what`` of variant ``key`` that no network plays."""
        have = ", ".join(f"{describe_variant(self.game, k)} ({self.sources[i]})"
                         for k, i in self.routes.items())
        hint = (train_hint(self.game, key) if self.committed else
                f"use a checkpoint trained for it ({train_hint(self.game, key)})")
        return (f"the policy has no network for {self.game} variant {key!r} "
                f"({describe_variant(self.game, key)}; {what}): it was trained only for "
                f"{have}; {hint}")

    def _softmax(self, logits) -> np.ndarray:
        """float64 [N, A]: the softmax of masked logits (illegal actions get exactly 0)."""
        return self.torch.softmax(logits, dim=1).cpu().numpy().astype(np.float64)

    def action_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> dict | None:
        """What the agent's network thinks of one observation and legal ``mask``:
        ``{"probabilities": float64 [A] in the game's action order, "delegate": name or
        None}`` — the distribution it takes its argmax of (or samples with
        ``sample=True``), from the network trained for the observed variant; ``delegate``
        names the agent that actually makes this decision when the network leaves it to
        one (agents.policy.delegate). None if no network plays the observed variant."""
        observations = np.asarray(observation, np.float32).reshape(1, -1)
        masks = np.asarray(mask, bool).reshape(1, -1)
        # the network of the observed variant (also with one network: it plays only its own)
        key = str(observed_variants(self.game, observations)[0])
        if key not in self.routes:
            return None
        index = self.routes[key]
        with self.torch.inference_mode():
            probs = self._softmax(self._forward(self.nets[index], observations, masks))[0]
        delegate = self.delegates[index]
        leaves_it = delegate is not None and not network_rows(self.game, masks)[0]
        return {"probabilities": probs, "delegate": delegate.name if leaves_it else None}

    def network_probabilities(self, observations: np.ndarray,
                              action_masks: np.ndarray) -> np.ndarray:
        """float64 [N, A]: :meth:`action_probabilities` of a batch, one forward pass per
        network; a row the network leaves to its delegate (a bid-only network's card
        play) is NaN."""
        masks = np.asarray(action_masks, dtype=bool)
        observations = np.asarray(observations, dtype=np.float32)
        probabilities = np.full(masks.shape, np.nan)
        for index, rows in self._rows_by_net(observations):
            if self.delegates[index] is not None:
                rows = rows[network_rows(self.game, masks[rows])]
            if len(rows):
                with self.torch.inference_mode():
                    logits = self._forward(self.nets[index], observations[rows], masks[rows])
                probabilities[rows] = self._softmax(logits)
        return probabilities

    def _net_act(self, index: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions of net ``index``: the argmax of its masked logits, or a sample."""
        with self.torch.inference_mode():
            logits = self._forward(self.nets[index], observations, masks)
            greedy = logits.argmax(dim=1).cpu().numpy().astype(np.int64)
            if not self.sample:
                return greedy
            probs = self._softmax(logits)
        # inverse-CDF sampling with the agent's own generator (reproducible by seed);
        # illegal actions have probability exactly 0, so a cdf plateau is never chosen
        cdf = np.cumsum(probs, axis=1)
        u = self.rng.random((len(cdf), 1)) * cdf[:, -1:]
        actions = np.minimum((cdf <= u).sum(axis=1), masks.shape[1] - 1)
        bad = ~masks[np.arange(len(actions)), actions]
        actions[bad] = greedy[bad]
        return actions.astype(np.int64)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        observations = np.asarray(observations, dtype=np.float32)
        actions = np.zeros(len(masks), dtype=np.int64)
        for index, rows in self._rows_by_net(observations):

            def net_act(obs, m, index=index):
                return self._net_act(index, obs, m)

            delegate = self.delegates[index]
            act = net_act if delegate is None else delegated(self.game, net_act,
                                                             delegate.act_batch)
            actions[rows] = act(observations[rows], masks[rows])
        return actions


#: the bid-only Abracadabra networks (``delegate: heuristic``), ``bidder/<game>_<variant>.pt``
BIDDER_DIR = CHECKPOINT_DIR / "bidder"


class BidderAgent(PolicyAgent):
    """The bid-only Abracadabra network (``configs/abracadabra_four.yaml``): it makes the
    bids (C1) and its delegate, the heuristic, shows, plays and calls
    (:mod:`agents.policy.delegate`). Loads ``agents/checkpoints/bidder/<game>_<variant>.pt``
    (``variant="four"`` unless given); ``path=`` loads another bid-only checkpoint. A
    checkpoint whose network makes every decision is a ``ValueError``: that is ``policy``.
    """

    summary = "the bid-only network: it bids, the heuristic plays (configs/abracadabra_four.yaml)"

    def __init__(self, game: str, path: str | Path | None = None, seed: int | None = None,
                 sample: bool = False, variant: str | None = None,
                 num_players: int | None = None, **kwargs):
        variant = table_variant(game, variant, num_players)
        if path is None and kwargs.get("checkpoint") is None:
            variant = variant or "four"
            path = BIDDER_DIR / f"{game}_{variant}.pt"
            if not path.exists():
                have = sorted(p.name for p in BIDDER_DIR.glob(f"{game}_*.pt"))
                raise ValueError(
                    f"no bid-only network for {game} variant={variant!r} in {BIDDER_DIR} "
                    f"(there are {have or 'none'}): train one with `cardrl train --config "
                    f"configs/abracadabra_four.yaml --out runs/NAME` (its options set the "
                    f"variant) and copy runs/NAME/policy.pt to {path}")
        super().__init__(game, path=path, seed=seed, sample=sample, variant=variant, **kwargs)
        for source, net in zip(self.sources, self.nets, strict=True):
            if net.delegate is None:
                raise ValueError(f"bidder: {source!r} is a network that makes every "
                                 "decision (no delegate); expected a bid-only checkpoint "
                                 "(ppo.delegate: heuristic), or use the agent 'policy'")
