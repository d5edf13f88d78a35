"""Pages outside the API: the home page, the static files and the embedding script."""

from signsvc.http.web import assets


async def test_home_page_says_where_the_api_is(api):
    reply = await api.with_key(None).get("/")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/html")
    assert b"http://signsvc.test/api" in reply.body


async def test_static_files_are_served_under_their_hash_for_a_year(api):
    reply = await api.with_key(None).get(assets.url("site.css"))
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/css")
    assert reply.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert reply.headers["X-Content-Type-Options"] == "nosniff"


async def test_scripts_are_served_as_javascript(api):
    reply = await api.with_key(None).get(assets.url("signing.js"))
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/javascript")


async def test_a_static_file_under_another_hash_is_served_without_long_caching(api):
    # A page rendered by a process of the previous release still finds its files during a rolling update.
    reply = await api.with_key(None).get("/static/0123456789abcdef/site.css")
    assert reply.status == 200
    assert reply.headers["Cache-Control"] == "no-cache"


async def test_an_unknown_static_file_is_not_found(api):
    reply = await api.with_key(None).get(assets.url("site.css").replace("site.css", "nothing.css"))
    assert reply.status == 404


async def test_embed_script_is_served_at_js_embed_js_to_any_site(api):
    reply = await api.with_key(None).get("/js/embed.js")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/javascript")
    assert reply.headers["Access-Control-Allow-Origin"] == "*"
    assert b"service-embed" in reply.body
