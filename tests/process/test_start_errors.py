"""Start and configuration errors of `python run.py`: one line that names the problem, exit code 1, no traceback;
and what a later start says about the keys it cannot print again."""

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from tests.support import service
from tests.support.paths import ROOT
from tests.support.system import requires

MEMORY = "sqlite:///:memory:"
DROP_FILE_MODE_OVERRIDE = ["--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"]


async def start_error(*args: str, prefix: tuple[str, ...] = (), **variables: str) -> str:
    """The one line a start that fails prints (after checking it fails with 1 and no traceback)."""
    process = await asyncio.create_subprocess_exec(
        *prefix,
        sys.executable,
        "run.py",
        *args,
        cwd=ROOT,
        env=service.environment(**variables),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert (process.returncode, out) == (1, b""), err.decode()
    assert b"Traceback" not in err, err.decode()
    text = err.decode()
    where = service.WHERE.match(text)  # a command names its database first
    [line] = text[where.end() if where else 0 :].splitlines()
    return line


def unwritable(directory: Path) -> tuple[str, ...]:
    """Makes `directory` read-only to the server; answers what to start it with. Root writes anywhere, so as root
    the server runs without the capabilities that override file modes, as a service user would."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o555)
    return ("setpriv", *DROP_FILE_MODE_OVERRIDE, "--") if os.geteuid() == 0 else ()


async def test_a_port_already_in_use_is_named():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = await start_error("--port", str(port), "--database", MEMORY)
    assert line == (
        f"signsvc: cannot listen on 127.0.0.1:{port}: the port is already in use "
        "(set another with --port or SIGNSVC_PORT)"
    )


async def test_an_address_of_another_machine_cannot_be_listened_on():
    line = await start_error("--host", "203.0.113.7", "--port", "0", "--database", MEMORY)
    assert line == (
        "signsvc: cannot listen on 203.0.113.7:0: the address is not one of this machine's "
        "(set another with --host or SIGNSVC_HOST)"
    )


async def test_a_host_name_that_does_not_resolve_cannot_be_listened_on():
    line = await start_error("--port", "0", "--database", MEMORY, SIGNSVC_HOST="no-such-host.invalid")
    assert line == (
        "signsvc: cannot listen on no-such-host.invalid:0: the host name does not resolve "
        "(set another with --host or SIGNSVC_HOST)"
    )


@pytest.mark.parametrize(
    "flags,variables,setting",
    [
        (["--port", "99999"], {}, "--port=99999"),
        (["--port", "-1"], {}, "--port=-1"),
        ([], {"SIGNSVC_PORT": "65536"}, "SIGNSVC_PORT=65536"),
    ],
)
async def test_a_port_outside_1_to_65535_is_refused_not_wrapped(flags, variables, setting):
    line = await start_error(*flags, "--database", MEMORY, **variables)
    assert line == f"signsvc: {setting} is not a port: use 1 to 65535, or 0 for any free port"


async def test_a_data_directory_that_cannot_be_created_stops_the_start_before_the_database_is_made(tmp_path):
    (tmp_path / "file").write_text("in the way")
    database = tmp_path / "signsvc.sqlite3"
    line = await start_error(
        "--port", "0", SIGNSVC_DATABASE_URL=f"sqlite:///{database}", SIGNSVC_DATA_DIR=str(tmp_path / "file" / "data")
    )
    assert line == (
        f"signsvc: SIGNSVC_DATA_DIR={tmp_path}/file/data: the directory {tmp_path}/file/data/files "
        f"cannot be created: {tmp_path}/file is a file"
    )
    assert not database.exists()


@requires("setpriv", package="util-linux")
async def test_a_data_directory_that_cannot_be_written_stops_the_start(tmp_path):
    prefix = unwritable(tmp_path / "data" / "files")
    line = await start_error(
        "--port",
        "0",
        prefix=prefix,
        SIGNSVC_DATABASE_URL=MEMORY,
        SIGNSVC_FILE_STORE="directory",
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
    )
    assert line == (
        f"signsvc: SIGNSVC_DATA_DIR={tmp_path}/data: the directory {tmp_path}/data/files cannot be "
        "written: Permission denied"
    )


@pytest.mark.parametrize("command", [["--port", "0"], ["migrate"]])
async def test_a_sqlite_database_whose_directory_cannot_be_created_stops_the_start(tmp_path, command):
    (tmp_path / "file").write_text("in the way")
    url = f"sqlite:///{tmp_path}/file/signsvc.sqlite3"
    line = await start_error(*command, SIGNSVC_DATABASE_URL=url)
    assert line == (
        f"signsvc: SIGNSVC_DATABASE_URL={url}: the directory {tmp_path}/file cannot be created: "
        f"{tmp_path}/file is a file"
    )


@requires("setpriv", package="util-linux")
async def test_a_sqlite_database_in_a_directory_that_cannot_be_written_stops_the_start(tmp_path):
    prefix = unwritable(tmp_path / "readonly")
    url = f"sqlite:///{tmp_path}/readonly/signsvc.sqlite3"
    line = await start_error("--port", "0", prefix=prefix, SIGNSVC_DATABASE_URL=url)
    assert line == (
        f"signsvc: SIGNSVC_DATABASE_URL={url}: the directory {tmp_path}/readonly cannot be written: Permission denied"
    )


async def started_lines(**variables: str) -> list[str]:
    """What a server prints on stdout from its start to its stop, which comes as soon as it is ready."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "run.py",
        "--port",
        "0",
        cwd=ROOT,
        env=service.environment(**variables),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    ready = await asyncio.wait_for(process.stdout.readline(), 30)
    process.send_signal(signal.SIGTERM)
    rest, _ = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0 and ready.startswith(b"signsvc ready: "), ready
    return (ready + rest).decode().splitlines()


async def test_a_restart_says_how_to_get_a_new_key(tmp_path):
    database = {"SIGNSVC_DATABASE_URL": f"sqlite:///{tmp_path}/signsvc.sqlite3"}
    first = await started_lines(**database)
    assert [line.split(":")[0] for line in first[1:]] == [
        "API key (live)",
        "API key (test)",
        "Console setup link (sets the password of admin@example.com)",
    ]
    assert (await started_lines(**database))[1:] == [
        "API keys are printed on the first start only; for a new one: python run.py keys rotate admin@example.com "
        "(add --mode test for the test key)"
    ]


async def test_a_start_with_both_keys_fixed_prints_no_key_only_the_ready_line_and_the_setup_link():
    lines = await started_lines(
        SIGNSVC_DATABASE_URL=MEMORY, SIGNSVC_API_KEY="fixed-live", SIGNSVC_TEST_API_KEY="fixed-test"
    )
    assert len(lines) == 2 and lines[1].startswith("Console setup link (sets the password of admin@example.com): ")


async def test_object_storage_with_wrong_credentials_stops_the_start_naming_the_variables(s3_url, monkeypatch):
    monkeypatch.setattr("moto.settings.INITIAL_NO_AUTH_ACTION_COUNT", 0)  # the emulator now checks keys
    line = await start_error(
        "--port", "0", SIGNSVC_DATABASE_URL=MEMORY, SIGNSVC_STORAGE_URL=s3_url, AWS_ACCESS_KEY_ID="wrong"
    )
    assert line.startswith(
        f"signsvc: SIGNSVC_STORAGE_URL={s3_url}: the object store refused to write a test object: InvalidAccessKeyId"
    )
    assert line.endswith("(check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")


async def test_a_bucket_that_does_not_exist_stops_the_start_saying_so(s3_emulator):
    line = await start_error("--port", "0", SIGNSVC_DATABASE_URL=MEMORY, SIGNSVC_STORAGE_URL="s3://no-such-bucket/x")
    assert line.startswith("signsvc: SIGNSVC_STORAGE_URL=s3://no-such-bucket/x: the object store refused to write")
    assert line.endswith("(the bucket does not exist)")


async def test_an_object_store_that_does_not_answer_stops_the_start_naming_its_address(s3_url):
    line = await start_error(
        "--port", "0", SIGNSVC_DATABASE_URL=MEMORY, SIGNSVC_STORAGE_URL=s3_url, AWS_ENDPOINT_URL="http://127.0.0.1:9"
    )
    assert line.startswith(f"signsvc: SIGNSVC_STORAGE_URL={s3_url}: the object store did not answer")
    assert line.endswith("(check AWS_ENDPOINT_URL=http://127.0.0.1:9)")
