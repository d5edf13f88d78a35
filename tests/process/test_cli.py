"""Management commands of `python run.py`."""

import asyncio
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp

from tests.support import service
from tests.support.paths import ROOT


def key_in(output: str, mode: str) -> str:
    return re.search(rf"^API key \({mode}\): (\S+)$", output, re.MULTILINE)[1]


async def status_with(server: service.Service, key: str) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.api}/user", headers={"X-Auth-Token": key}) as response,
    ):
        return response.status


async def test_help_lists_every_command():
    code, out, _ = await service.run("--help")
    assert code == 0
    for command in ("serve", "migrate", "accounts", "users", "keys", "access", "webhooks"):
        assert command in out


async def test_management_commands_load_neither_the_web_stack_nor_the_pdf_engines(database_url):
    """So that a command answers in a fraction of a second: only `serve` needs them."""
    loaded = (
        "import sys; print(sorted(m for m in ('aiohttp', 'jinja2', 'pypdf', 'pyhanko', 'fpdf') if m in sys.modules))"
    )
    for command in (["migrate"], ["webhooks", "list"], ["users", "list"]):
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            f"from signsvc.cli import main; main({command!r}); {loaded}",
            cwd=ROOT,
            env=service.environment(SIGNSVC_DATABASE_URL=database_url),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 60)
        assert (process.returncode, out.decode().splitlines()[-1]) == (0, "[]"), (command, out.decode())


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
    assert out.splitlines()[-2:] == [
        "1\tsignsvc\tAPI access approved\ttest account 2",
        "3\tAcme\tAPI access not approved\ttest account 4",
    ]
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


def setup_path(output: str) -> str:
    return re.search(r"^Console setup link .*: https://sign\.example\.test(/console/setup/\S+)$", output, re.MULTILINE)[
        1
    ]


async def page_status(server: service.Service, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"{server.site}{path}") as response:
        return response.status, await response.text()


async def test_the_first_start_by_a_command_prints_the_first_users_setup_link_with_the_keys(database_url):
    code, out, _ = await service.run(
        "migrate", SIGNSVC_DATABASE_URL=database_url, SIGNSVC_SITE_URL="https://sign.example.test"
    )
    assert code == 0 and key_in(out, "live") and key_in(out, "test")
    assert re.search(
        r"^Console setup link \(sets the password of admin@example\.com\): "
        r"https://sign\.example\.test/console/setup/\w+$",
        out,
        re.MULTILINE,
    )


async def test_users_setup_link_prints_a_new_link_on_the_configured_site_that_sets_the_password(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_SITE_URL": "https://sign.example.test"}
    _, first_start, _ = await service.run("migrate", **env)
    code, out, err = await service.run("users", "setup-link", "Admin@Example.com", **env)
    assert (code, err) == (0, "")
    assert out.startswith(
        "Console setup link of admin@example.com (works once, for 7 days; earlier ones stop working): "
    )
    server = await service.start(**{**env, "SIGNSVC_SITE_URL": ""})
    try:
        status, page = await page_status(server, setup_path(out))
        assert status == 200 and "Set your password" in page and "admin@example.com" in page
        assert (await page_status(server, setup_path(first_start)))[0] == 410, "the newer link replaces the first"
    finally:
        await server.stop()


async def test_users_admin_makes_and_unmakes_an_instance_administrator(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url}
    await service.run("users", "create", "--email", "bob@example.com", **env)
    code, out, _ = await service.run("users", "admin", "bob@example.com", **env)
    assert (code, out) == (0, "user 2 <bob@example.com> is an instance administrator\n")
    code, out, _ = await service.run("users", "admin", "bob@example.com", "--revoke", **env)
    assert (code, out) == (0, "user 2 <bob@example.com> is no longer an instance administrator\n")


async def test_users_deactivate_stops_the_users_keys_and_setup_links(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_SITE_URL": "https://sign.example.test"}
    await service.run("migrate", **env)  # the first start's keys and link: the next output has only Bob's
    code, out, _ = await service.run("users", "create", "--email", "bob@example.com", **env)
    bob_live, bob_link = key_in(out, "live"), setup_path(out)
    assert "bob@example.com" in out.splitlines()[-1]
    code, out, _ = await service.run("users", "deactivate", "bob@example.com", **env)
    assert (code, out) == (
        0,
        "user 2 <bob@example.com> deactivated: their API keys and console sessions no longer work\n",
    )
    server = await service.start(**{**env, "SIGNSVC_SITE_URL": ""})
    try:
        assert await status_with(server, bob_live) == 401
        assert (await page_status(server, bob_link))[0] == 410
    finally:
        await server.stop()
    code, _, err = await service.run("users", "setup-link", "bob@example.com", **env)
    assert (code, err) == (1, "signsvc: User bob@example.com was deactivated: a setup link would not work\n")


async def test_user_commands_for_an_unknown_email_fail_with_a_message(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url}
    for command in (["setup-link"], ["admin"], ["admin", "--revoke"], ["deactivate"]):
        code, out, err = await service.run("users", *command[:1], "nobody@example.com", *command[1:], **env)
        assert (code, err) == (1, "signsvc: User nobody@example.com not found\n"), command
        assert "Console setup link of" not in out and "deactivated" not in out


async def test_keys_made_by_commands_are_shown_in_the_console(database_url):
    env = {"SIGNSVC_DATABASE_URL": database_url}
    _, first_start, _ = await service.run("migrate", **env)
    _, out, _ = await service.run("keys", "rotate", "admin@example.com", **env)
    rotated = re.fullmatch(r"API key \(live\) of admin@example.com: (\S+)\n", out)[1]
    server = await service.start(**env)
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
            _, out, _ = await service.run("users", "setup-link", "admin@example.com", **env)
            link = server.site + urlsplit(re.search(r": (http\S+)$", out.strip())[1]).path
            async with browser.get(link) as response:
                csrf = re.search(r'name="csrf" value="([^"]+)"', await response.text())[1]
            password = "a long enough password"
            async with browser.post(link, data={"csrf": csrf, "password": password, "confirmation": password}) as reply:
                assert reply.status == 200 and reply.url.path == "/console"
            async with browser.get(f"{server.site}/console/settings/api") as response:
                page = await response.text()
        assert f'id="key-live-value">{rotated}<' in page
        assert f'id="key-test-value">{key_in(first_start, "test")}<' in page
    finally:
        await server.stop()


async def test_options_before_a_command_apply_to_it_as_after_it(database_url, tmp_path):
    """`--database X users list` lists the users of X, not of the configured database."""
    configured = {"SIGNSVC_DATABASE_URL": f"sqlite:///{tmp_path / 'configured.sqlite3'}"}
    code, _, err = await service.run_whole(
        "--database", database_url, "users", "create", "--email", "b@x.test", **configured
    )
    assert code == 0 and err.startswith(f"signsvc: database {database_url}, "), err
    _, before, _ = await service.run("--database", database_url, "users", "list", **configured)
    _, after, _ = await service.run("users", "list", "--database", database_url, **configured)
    _, elsewhere, _ = await service.run("users", "list", **configured)
    assert before == after and "b@x.test" in before
    assert "b@x.test" not in elsewhere


async def test_every_data_command_names_its_database_and_file_store_first_on_stderr(database_url):
    code, out, err = await service.run_whole(
        "accounts", "list", SIGNSVC_DATABASE_URL=database_url, SIGNSVC_DATA_DIR="/srv/x"
    )
    assert code == 0 and out.splitlines()[-1].startswith("1\tsignsvc\t")
    assert err == f"signsvc: database {database_url}, files in /srv/x/files\n"


async def test_a_listening_option_before_a_command_that_does_not_listen_is_refused_in_one_line():
    code, out, err = await service.run("--port", "0", "users", "list")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "python run.py: error: --port applies to serve only: python run.py serve --port 0"


async def test_the_console_command_and_version_print_the_installed_version():
    import signsvc

    command = str(Path(sys.executable).with_name("signsvc"))
    for argv in ([command, "--version"], [sys.executable, "run.py", "--version"]):
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=ROOT, env=service.environment(), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(process.communicate(), 60)
        assert (process.returncode, out.decode()) == (0, f"signsvc {signsvc.__version__}\n"), argv
