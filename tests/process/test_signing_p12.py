"""A real `python run.py` process started with an unusable PKCS#12: it stops before its ready line with one
error line naming the problem. The other problems are checked through the app's start in
tests/api/test_signing_p12.py."""

from tests.support import pkcs12_files as files
from tests.support import service


async def start_error(path, **variables: str) -> str:
    code, out, err = await service.run(
        "--port", "0", SIGNSVC_DATABASE_URL="sqlite:///:memory:", SIGNSVC_SIGNING_P12=str(path), **variables
    )
    assert code == 1 and "ready" not in out
    [line] = [line for line in err.splitlines() if "SIGNSVC_SIGNING_P12" in line]
    return line


async def test_the_server_process_names_a_wrong_password_for_the_pkcs12(tmp_path):
    path = tmp_path / "acme.p12"
    path.write_bytes(files.triple_des(files.acme_chain()))
    line = await start_error(path, SIGNSVC_SIGNING_P12_PASSWORD="wrong")
    problem = "The PKCS#12 file can't be read: the password is wrong or the file is damaged"
    assert line.endswith(f"SIGNSVC_SIGNING_P12={path}: {problem}")


@files.OPENSSL
async def test_the_server_process_names_an_rc2_file_its_openssl_cannot_decrypt_and_how_to_convert_it(tmp_path):
    """OpenSSL 3 without its legacy provider (as some distributions build it, here by cryptography's own switch)
    can't decrypt RC2-40: the start says so instead of calling the password wrong."""
    path = tmp_path / "acme.p12"
    path.write_bytes(files.rc2(files.acme_chain(), tmp_path))
    line = await start_error(path, SIGNSVC_SIGNING_P12_PASSWORD=files.PASSWORD, CRYPTOGRAPHY_OPENSSL_NO_LEGACY="1")
    assert line.endswith(
        f"SIGNSVC_SIGNING_P12={path}: The PKCS#12 file is encrypted with 3DES, RC2-40, which this installation's "
        "OpenSSL can't decrypt: convert it (docs/certificates.md, 'Legacy PKCS#12 files')"
    )
