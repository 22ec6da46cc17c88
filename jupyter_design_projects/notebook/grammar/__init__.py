"""How a line reads: the subcommands' declarations (their words, arguments and help), the
parser built from them, and the plain-line reading of the common lines."""

__all__ = [
    "declared", "design_words", "parse", "plain_lines", "subcommands"
]
