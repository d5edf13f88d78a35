"""Management commands of `python run.py`."""

import re

import aiohttp

from tests.support import service


def key_in(output: str, mode: str) -> str:
    return re.search(rf"^API key \({mode}\): (\S+)$", output, re.MULTILINE)[1]


async def status_with(server: service.Service, key: str) -> int:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{server.api}/user", headers={"X-Auth-Token": key}) as response:
            return response.status


async def test_help_lists_every_command():
    code, out, _ = await service.run("--help")
    assert code == 0
    for command in ("serve", "migrate", "accounts", "users", "keys", "access", "webhooks"):
        assert command in out


async def test_migrate_brings_the_schema_up_to_date_and_prints_the_first_keys(database_url):
    code, out, _ = await service.run("migrate", SIGNSVC_DATABASE_URL=database_url)
    assert code == 0
    assert "schema is up to date" in out and key_in(out, "live") and key_in(out, "test")
    code, out, _ = await service.run("migrate", SIGNSVC_DATABASE_URL=database_url)
    assert (code, out) == (0, "schema is up to date\n")


async def test_user_creation_key_rotation_and_api_access_approval(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_API_KEY": "admin-key", "SIGNSVC_TEST_API_KEY": "admin-test"}
    code, out, _ = await service.run("users", "create", "--email", "Bob@Example.com", "--first-name", "Bob", **env)
    assert code == 0 and "user 2 <bob@example.com> created in account 1" in out
    bob_live, bob_test = key_in(out, "live"), key_in(out, "test")

    code, out, _ = await service.run("keys", "rotate", "bob@example.com", "--mode", "test", **env)
    assert code == 0
    new_test = re.fullmatch(r"API key \(test\) of bob@example.com: (\S+)\n", out)[1]

    code, out, _ = await service.run("access", "revoke", **env)
    assert (code, out) == (0, "API access of account 1 (signsvc) revoked\n")
    server = await service.start(**env)
    try:
        assert await status_with(server, bob_live) == 403
    finally:
        await server.stop()

    code, out, _ = await service.run("access", "approve", "--account", "1", **env)
    assert code == 0
    server = await service.start(**env)
    try:
        assert [await status_with(server, key) for key in (bob_live, bob_test, new_test)] == [200, 401, 200]
    finally:
        await server.stop()


async def test_accounts_create_and_list(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url}
    code, out, _ = await service.run("accounts", "create", "--name", "Acme", "--email", "ops@acme.test", **env)
    assert code == 0 and "account 3 created with user 2 <ops@acme.test>" in out
    code, out, _ = await service.run("accounts", "list", **env)
    assert out.splitlines()[-2:] == ["1\tsignsvc\tAPI access approved\ttest account 2",
                                     "3\tAcme\tAPI access not approved\ttest account 4"]
    code, out, _ = await service.run("users", "list", "--account", "3", **env)
    assert out == "2\tops@acme.test\n"


async def test_commands_on_missing_records_fail_clearly(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url}
    code, _, err = await service.run("keys", "rotate", "nobody@example.com", **env)
    assert (code, err) == (1, "signsvc: User nobody@example.com not found\n")
    code, _, err = await service.run("access", "approve", "--account", "99", **env)
    assert (code, err) == (1, "signsvc: Account 99 not found\n")
    code, _, err = await service.run("users", "create", "--email", "admin@example.com", **env)
    assert (code, err) == (1, "signsvc: email admin@example.com is already taken\n")
