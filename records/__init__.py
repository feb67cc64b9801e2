"""Game records: the JSON-lines format written by ``--save-games``, exact replay checks and
narration."""
