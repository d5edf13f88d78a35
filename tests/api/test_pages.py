"""Pages outside the API: the home page, the static files and the embedding script; the templates' environments
the app registers with aiohttp-jinja2."""

import aiohttp_jinja2

import pages
from signsvc.http.web import assets, templating


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


async def test_the_emails_environment_the_app_registers_is_the_one_the_mailer_composes_with(api):
    emails = aiohttp_jinja2.get_env(api.app, app_key=templating.EMAILS)
    assert emails.get_template("invitation.html") is pages.email_templates().get_template("invitation.html")
