"""GET /user."""

from tests.support.app import TEST_KEY


async def test_get_user_returns_the_user_the_key_belongs_to(api):
    reply = await api.get("/api/user")
    assert reply.status == 200
    assert reply.json == {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}


async def test_get_user_with_the_test_key_returns_the_same_user(api):
    reply = await api.with_key(TEST_KEY).get("/api/user")
    assert reply.status == 200
    assert reply.json["id"] == 1


async def test_get_user_of_another_account_returns_that_user(api, other_account):
    reply = await api.with_key(other_account.live).get("/api/user")
    assert reply.json == {
        "id": other_account.user.id,
        "first_name": None,
        "last_name": None,
        "email": "other@example.com",
    }


async def test_get_user_accepts_the_trailing_question_mark_of_the_python_client(api):
    reply = await api.get("/api/user?")
    assert reply.status == 200
