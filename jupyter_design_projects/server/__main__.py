"""`python -m jupyter_design_projects.server`: the same as the `jdp-server` command."""

from .cli import main

raise SystemExit(main())
