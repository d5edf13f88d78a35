"""Pages outside the API: the home page, its assets."""


async def test_home_page_says_where_the_api_is(api):
    reply = await api.with_key(None).get("/")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/html")
    assert b"http://signsvc.test/api" in reply.body


async def test_static_assets_are_served(api):
    reply = await api.with_key(None).get("/static/site.css")
    assert reply.status == 200
