"""``python -m agents.policy.convert IN OUT [--trust-pickle]``: rewrite a policy checkpoint
in the current format (:mod:`agents.policy.checkpoint`), weights and metadata unchanged.

IN may be a version-1 ``.pt`` or an SB3 ``MaskablePPO`` ``.zip``; both are read by
unpickling them, which runs any code they name, so they convert only with
``--trust-pickle`` (files from a trusted source). OUT then loads without running code.
``--trust-pickle`` unpickles nothing else: a current-version ``.pt`` is always read with
``weights_only=True`` (:mod:`agents.policy.checkpoint`). Exit status 2 with one line on
stderr for a file that cannot be converted or written.
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.policy.checkpoint import TRUST_PICKLE_HELP, convert_checkpoint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.policy.convert",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the checkpoint to convert (.pt or SB3 .zip)")
    parser.add_argument("out", help="the converted checkpoint to write (.pt)")
    parser.add_argument("--trust-pickle", action="store_true", help=TRUST_PICKLE_HELP)
    parser.add_argument("--game", help="the game of an SB3 zip (it does not record it)")
    parser.add_argument("--options", type=json.loads, default=None,
                        help='the game options of an SB3 zip as JSON, e.g. \'{"variant": "two"}\'')
    args = parser.parse_args(argv)
    try:
        out = convert_checkpoint(args.source, args.out, trust_pickle=args.trust_pickle,
                                 game=args.game, options=args.options)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # OUT cannot be written (no such folder, no space, ...)
        print(f"error: could not write {args.out!r} ({error.strerror or error}); expected a "
              f"writable path", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
