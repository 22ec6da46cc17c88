"""The notebook layer: parse the magic line, call the pipeline, render. Widgets live here.

Top first: the magics (`magics`, and `prompt` for AgentTools), `commands` (the registry
and its run-and-settle path), the notebook `host`, `widgets`, `views`, and the ground
(`grammar`, `remedies`, `setting_traits`, `lifecycle`)."""

__all__ = ["commands", "grammar", "host", "lifecycle", "magics", "prompt", "remedies",
           "setting_traits", "views", "widgets"]
