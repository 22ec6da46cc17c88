"""Pure rules: no I/O, no clock, no randomness. Time and keys come in as arguments."""
