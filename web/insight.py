"""What agents think at a position: a policy network's action probabilities, and the move
every agent would make there (the page's Analyse panel).

:func:`action_probabilities` asks a :class:`agents.policy.agent.PolicyAgent` for
:meth:`~agents.policy.agent.PolicyAgent.action_probabilities`: the softmax of the masked
logits, in the game's action order, of the network that plays the observed variant — the
distribution the agent takes its argmax of (or samples with ``sample=True``).
"""

from __future__ import annotations

import numpy as np


def action_probabilities(agent, observation: np.ndarray, mask: np.ndarray) -> dict | None:
    """``{"probabilities": {action name: p} over the legal actions, "delegate": name or
    None}`` from ``agent``'s network for one observation and legal mask, or None if
    ``agent`` has no network for the observed variant. ``delegate`` names the agent that
    actually makes this decision when the network leaves it to one
    (agents.policy.delegate)."""
    if not getattr(agent, "nets", None):
        return None
    found = agent.action_probabilities(observation, mask)
    if found is None:
        return None
    probs = found["probabilities"]
    names = agent_action_names(agent.game)
    legal = np.flatnonzero(np.asarray(mask, bool).reshape(-1))
    return {"probabilities": {names[a]: round(float(probs[a]), 4) for a in legal},
            "delegate": found["delegate"]}


def agent_action_names(game: str) -> tuple[str, ...]:
    """The action names of ``game`` (the same for every variant)."""
    from envs import registry

    return registry.make_engine(game, 1).action_names


def analyse(catalog, game: str, options: dict, engine, seat: int) -> list[dict]:
    """What every agent offered for ``game`` (and every visible checkpoint) would do in
    game 0 of ``engine`` as ``seat``, the seat to act: ``[{"agent", "action",
    "probabilities"?, "note"?}]``. ``engine`` is not changed."""
    from web.catalog import plays_options

    obs = engine.observe(np.array([seat]))[0]
    mask = engine.legal_action_mask()[0]
    names = engine.action_names
    rows = []
    specs = [a["spec"] for a in catalog.describe()["games"][game]["agents"]]
    specs += catalog.describe()["checkpoints"]
    for spec in specs:
        row = {"agent": spec}
        try:
            agent = catalog.make_agent(game, spec, seed=0)
            if getattr(agent, "nets", None) and not plays_options(agent, game, options):
                row["note"] = "no network for this table"
                rows.append(row)
                continue
            if getattr(agent, "needs_engine", False):  # search agents (agents.base)
                row["action"] = names[int(agent.act_engine(engine, np.zeros(1, np.intp))[0])]
            else:
                row["action"] = names[int(agent.act(obs, mask))]
            probs = action_probabilities(agent, obs, mask)
            if probs is not None:
                row["probabilities"] = probs["probabilities"]
                if probs["delegate"]:
                    row["note"] = f"this decision is made by its delegate {probs['delegate']}"
            if spec == "random":
                row["note"] = f"uniform over {int(mask.sum())} legal actions"
        except (ValueError, OSError, RuntimeError) as err:
            row["note"] = f"cannot play here: {err}"
        rows.append(row)
    return rows
