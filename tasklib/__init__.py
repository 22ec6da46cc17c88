"""tasks.py's parts (stdlib only: tasks.py runs under any python3 before the venv exists)."""
