"""Four Aces agents: greedy and look-ahead discarders, suit symmetry."""
