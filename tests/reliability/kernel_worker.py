"""A stand-in for a notebook kernel, run as its own process by the crash and credential
cases: it opens a Session on the reference service from a JSON argument and runs one
action, printing one JSON line per step so the parent knows when to kill it.

    python kernel_worker.py '{"action": "upload"|"expand"|"info"|"sync"|"deck_push", ...}'
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings


def say(**fields) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def deck_push(session: Session, job: dict) -> dict:
    """Stage `job["slides"]` (path -> Markdown) on the project, approve every plan, say
    `approved`, wait for the parent's go (a line on stdin), then write them all."""
    from jupyter_design_projects.design.deck import Deck

    session.run(session.design.consent())
    deck = Deck(session.design, records=session.deck_records)
    session.run(deck.bind(job["project_id"]))
    for path, markdown in job["slides"].items():
        deck.add_markdown(path, markdown)
    session.run(deck.refresh())
    plans = []
    for batch in deck.batches():
        card = session.run(deck.ask_plan(batch))
        plan = session.run(session.design.resume(card, approved=True))
        plans.append((batch, plan.data["plan_token"]))
    say(step="approved", plans=[list(batch) for batch, _token in plans])
    sys.stdin.readline()
    report = session.run(deck.write_plans(plans), timeout=300)
    return {"written": len(report.written)}


def main() -> int:
    job = json.loads(sys.argv[1])
    settings = Settings.resolve({}, job["settings"])
    can_ask = job["action"] == "deck_push"  # its plan cards are approved as clicks would
    with Session(settings, data_dir=Path(job["data_dir"]), can_ask=lambda: can_ask) as session:
        say(step="opened", temp_dir=str(session.temp_dir))
        try:
            if job["action"] == "upload":
                result = session.run(session.projects.write(job["path"],
                                                            local_path=job["local_path"]))
            elif job["action"] in ("expand", "info"):
                session.run(session.credentials.access_token())
                say(step="loaded")
                if "barrier" in job:  # wait for the parent's go (a line on stdin)
                    sys.stdin.readline()
                result = session.run(session.projects.info())
                result = {"notice": result.get("notice")}
            elif job["action"] == "sync":  # an approved `%project sync` of a folder
                from jupyter_design_projects.projects.sync import SyncRequest, run_sync

                plan = session.run(run_sync(session.projects, session.sync_state,
                                            SyncRequest(job["folder"], to=job["prefix"]),
                                            approve=lambda plan: True))
                assert plan.report is not None
                result = {"written": len(plan.report.written)}
            elif job["action"] == "deck_push":  # `%design deck push`, every card approved
                result = deck_push(session, job)
            else:
                raise SystemExit(f"unknown action {job['action']}")
        except JdpError as exc:
            say(step="failed", kind=exc.kind, reason=getattr(exc, "reason", None))
            return 0
        say(step="done", result={k: v for k, v in result.items() if k != "content"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
