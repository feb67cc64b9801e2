"""Game records: the JSON-lines format written by ``--save-games`` (:mod:`records.format`,
every field checked by :mod:`records.checks`), recording from a batch loop
(:mod:`records.recorder`), exact replay checks (:mod:`records.replay`), narration
(:mod:`records.narrate`, :mod:`records.describe`) and where a result came from
(:mod:`records.provenance`). Imports ``envs`` only."""
