"""The signing identity from the command line: the `signing` commands, and a server process refusing to
start with a PKCS#12 it can't read. The identity inside the app is in tests/api/test_signing_identity.py."""

from tests.support import service


async def test_the_server_process_refuses_to_start_with_an_unreadable_pkcs12(tmp_path):
    code, out, err = await service.run(
        "--port", "0", SIGNSVC_DATABASE_URL="sqlite:///:memory:", SIGNSVC_SIGNING_P12=str(tmp_path / "none.p12")
    )
    assert code == 1 and "ready" not in out
    assert f"SIGNSVC_SIGNING_P12={tmp_path / 'none.p12'} can't be read" in err


async def test_signing_list_and_rotate_commands(tmp_path):
    env = {"SIGNSVC_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "SIGNSVC_DATA_DIR": str(tmp_path)}
    code, out, _ = await service.run("signing", "rotate", **env)
    assert code == 0 and "generated; earlier certificates stay trusted" in out
    code, out, _ = await service.run("signing", "rotate", **env)
    code, out, _ = await service.run("signing", "list", **env)
    lines = [line.split("\t") for line in out.strip().splitlines() if line.count("\t") == 4]
    assert [(line[0], line[2], line[4].split()[0]) for line in lines] == [
        ("1", "generated", "retired"),
        ("2", "generated", "signs"),
    ]
