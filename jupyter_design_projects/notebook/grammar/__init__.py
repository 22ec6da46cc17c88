"""How a line reads: the subcommands' declarations (their words, arguments and help), the
parser built from them, and the plain-line reading of the common lines."""

__all__ = [
    "parse", "plain_lines", "subcommands"
]
