"""Signature, image and file values become stored files: downloaded over https, decoded and checked in
the pool, or drawn from typed text."""

import hashlib
import io

import pytest
from aiohttp import web
from PIL import Image

from signsvc.infra import errors
from signsvc.infra.downloads import Downloader
from signsvc.infra.office import OfficeConverter
from signsvc.submissions import attachments
from signsvc.submissions.field_values import Typed, Upload
from signsvc.templates.documents import Ingest
from tests.support.documents import b64, pdf, png
from tests.support.https import serve_https
from tests.support.samples import image_bytes

WHERE = ("submitters", 0, "values")
EXE = b"MZ\x90\x00" + b"\x00" * 60


def field(type, name="Answer"):
    return {
        "uuid": "f",
        "submitter_uuid": "r",
        "name": name,
        "type": type,
        "required": True,
        "readonly": False,
        "preferences": {},
        "areas": [],
    }


@pytest.fixture
async def ingest(pdf_pool, client_ssl):
    async with Downloader(max_bytes=10**6, allow_private=True, ssl_context=client_ssl) as downloader:
        yield Ingest(pdf_pool, OfficeConverter(), downloader)


@pytest.fixture
async def remote(certificate, tmp_path):
    """A real HTTPS server on localhost serving files by name; `remote.requests` lists the paths asked for."""
    served = {
        "/sign.png": png(),
        "/files/lease.pdf": pdf(),
        "/notes.txt": b"plain notes",
        "/download": pdf(),
        "/tool.exe": EXE,
    }
    requests = []

    async def serve(request):
        requests.append(request.path)
        if request.path not in served:
            raise web.HTTPNotFound()
        return web.Response(body=served[request.path])

    app = web.Application()
    app.router.add_get("/{path:.*}", serve)
    runner, port = await serve_https(app, certificate, tmp_path)

    class Remote:
        def url(self, path):
            return f"https://localhost:{port}{path}"

    Remote.requests = requests
    yield Remote()
    await runner.cleanup()


async def refusal(ingest, source, type, name="Answer"):
    with pytest.raises(errors.Invalid) as failure:
        await attachments.store(ingest, source, field(type, name), WHERE)
    assert failure.value.status == 422
    return failure.value.message


@pytest.mark.parametrize("type", ["signature", "initials"])
async def test_a_typed_signature_is_stored_as_a_png_named_after_the_field_type(ingest, type):
    file = await attachments.store(ingest, Typed("Bob Smith"), field(type), WHERE)
    assert (file.filename, file.content_type) == (f"{type}.png", "image/png")
    assert file.sha256 == hashlib.sha256(file.data).hexdigest()
    assert Image.open(io.BytesIO(file.data)).getchannel("A").getbbox() is not None


@pytest.mark.parametrize(
    "type, format, filename, content_type",
    [
        ("signature", "PNG", "signature.png", "image/png"),
        ("image", "JPEG", "image.jpg", "image/jpeg"),
        ("stamp", "WEBP", "stamp.webp", "image/webp"),
        ("initials", "GIF", "initials.gif", "image/gif"),
    ],
)
async def test_a_base64_image_is_stored_unchanged(ingest, type, format, filename, content_type):
    data = image_bytes(format)
    file = await attachments.store(ingest, Upload(b64(data)), field(type), WHERE)
    assert (file.data, file.filename, file.content_type) == (data, filename, content_type)
    assert file.sha256 == hashlib.sha256(data).hexdigest()


async def test_a_data_uri_prefix_is_dropped(ingest):
    data = image_bytes("JPEG")
    file = await attachments.store(ingest, Upload(f"data:image/jpeg;base64,{b64(data)}"), field("image"), WHERE)
    assert file.data == data


@pytest.mark.parametrize("data", [pdf(), b"just text", image_bytes("TIFF")])
@pytest.mark.parametrize("type", ["signature", "image", "stamp"])
async def test_an_image_field_refuses_anything_but_png_jpeg_webp_or_gif(ingest, data, type):
    assert await refusal(ingest, Upload(b64(data)), type) == (
        "Answer: The file is not an image: send a PNG, JPEG, WebP or GIF in `submitters[0].values`."
    )


async def test_a_broken_image_is_refused(ingest):
    broken = png()[:40]
    assert await refusal(ingest, Upload(b64(broken)), "signature") == (
        "Answer: The image can't be read in `submitters[0].values`."
    )


async def test_text_that_is_not_base64_is_refused(ingest):
    assert await refusal(ingest, Upload("not*base64" * 10), "image", "Photo") == (
        "Photo: the value is neither valid base64 nor an https:// URL ('*' at character 4 is not a base64 "
        "character) in `submitters[0].values`."
    )


async def test_an_image_url_is_downloaded_over_https(ingest, remote):
    file = await attachments.store(ingest, Upload(remote.url("/sign.png")), field("signature"), WHERE)
    assert (file.data, file.filename, file.content_type) == (png(), "signature.png", "image/png")


async def test_a_failed_download_is_422_naming_the_field(ingest, remote):
    assert await refusal(ingest, Upload(remote.url("/gone.png")), "signature", "Sign here") == (
        "Sign here: The document URL answered with HTTP status 404 (Not Found) in `submitters[0].values`."
    )


async def test_a_url_on_a_private_address_is_refused(pdf_pool):
    async with Downloader(max_bytes=10**6) as downloader:
        ingest = Ingest(pdf_pool, OfficeConverter(), downloader)
        assert await refusal(ingest, Upload("https://127.0.0.1:9/sign.png"), "signature") == (
            "Answer: The document URL points to a private or local network address; only public addresses are "
            "allowed in `submitters[0].values`."
        )


@pytest.mark.parametrize(
    "path, filename, content_type",
    [
        ("/files/lease.pdf", "lease.pdf", "application/pdf"),
        ("/download", "download.pdf", "application/pdf"),
        ("/notes.txt", "notes.txt", "application/octet-stream"),
    ],
)
async def test_a_downloaded_file_keeps_its_url_name_with_the_extension_its_content_shows(
    ingest, remote, path, filename, content_type
):
    file = await attachments.store(ingest, Upload(remote.url(path)), field("file"), WHERE)
    assert (file.filename, file.content_type) == (filename, content_type)


@pytest.mark.parametrize(
    "data, filename, content_type",
    [
        (pdf(), "file.pdf", "application/pdf"),
        (png(), "file.png", "image/png"),
        (b"a,b\n1,2\n", "file", "application/octet-stream"),
    ],
)
async def test_a_base64_file_is_named_by_its_content(ingest, data, filename, content_type):
    file = await attachments.store(ingest, Upload(b64(data)), field("file"), WHERE)
    assert (file.data, file.filename, file.content_type) == (data, filename, content_type)


@pytest.mark.parametrize(
    "data, kind",
    [
        (EXE, "'.exe'"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 20, "'ELF executable'"),
        (b"#!/bin/sh\nrm -rf /\n", "'script'"),
    ],
)
async def test_an_executable_file_is_refused_by_its_content(ingest, data, kind):
    assert await refusal(ingest, Upload(b64(data)), "file", "Attachment") == (
        f"Attachment: File type {kind} is not allowed in `submitters[0].values`."
    )


async def test_a_dangerous_file_name_is_refused_before_downloading(ingest, remote):
    assert await refusal(ingest, Upload(remote.url("/tool.exe")), "file") == (
        "Answer: File type '.exe' is not allowed in `submitters[0].values`."
    )
    assert remote.requests == []


async def test_an_executable_given_for_an_image_field_is_refused_too(ingest):
    assert await refusal(ingest, Upload(b64(EXE)), "image") == (
        "Answer: File type '.exe' is not allowed in `submitters[0].values`."
    )
