"""A hostile service's log messages and notifications, shown in the inspector's
Notifications pane and in `%design trace`, rendered in Chromium with script on: nothing
runs, nothing loads, nothing navigates."""

from __future__ import annotations

from tests.hostile_content import beacon, page_of, render
from tests.notebook.hostile_notifications import hostile_views


def test_hostile_notifications_run_nothing_and_load_nothing(chromium) -> None:
    with beacon() as spot:
        views = hostile_views(spot.url)
        rendered = render(chromium, [page_of(views)], spot)
    assert rendered.hits == []
    assert set(rendered.pwned) == {None}
    assert rendered.navigated == [] and rendered.js_links == 0
    assert rendered.requested == []
