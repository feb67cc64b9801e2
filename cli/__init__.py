"""The ``cardrl`` command line: :mod:`cli.main` dispatches to one thin module per command."""
