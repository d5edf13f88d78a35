"""Logs keep no credential: signing slugs and signed-link tokens in paths are cut to four characters."""

import pytest

from signsvc.http.middleware import loggable_path


@pytest.mark.parametrize(
    "path,logged",
    [
        ("/s/zRyksj9uHChFbr", "/s/zRyk…"),
        ("/s/zRyksj9uHChFbr/complete", "/s/zRyk…/complete"),
        ("/apiemb/zRyksj9uHChFbr", "/apiemb/zRyk…"),
        ("/c/zRyksj9uHChFbr", "/c/zRyk…"),
        ("/d/zRyksj9uHChFbr", "/d/zRyk…"),
        ("/e/zRyksj9uHChFbr.1767271200.0qtHJ03f2b", "/e/zRyk…"),
        ("/file/b34590ed17394a86a0a5d197b6e7a806.1767271200.0qtH/signature.png", "/file/b345…/signature.png"),
        ("/console/setup/7sKqHc2PzRyksj9uHChFbr", "/console/setup/7sKq…"),
        ("/console/reset/7sKqHc2PzRyksj9uHChFbr", "/console/reset/7sKq…"),
        ("/console/reset", "/console/reset"),
        ("/api/submitters/1", "/api/submitters/1"),
        ("/static/0123456789abcdef/site.css", "/static/0123456789abcdef/site.css"),
    ],
)
def test_a_slug_or_token_in_a_path_is_logged_by_its_first_four_characters(path, logged):
    assert loggable_path(path) == logged
