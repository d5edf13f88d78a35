"""Security headers and limits: file links and pages carry headers that keep uploads from running on the
site and links from leaking; image and PDF bombs are refused from their headers while the server answers."""

import pytest
from yarl import URL

from signsvc.http.appkeys import FILES
from signsvc.infra.files import NewFile
from signsvc.pdf import previews
from tests.support.app import Api
from tests.support.documents import b64
from tests.support.signing import area, send, template
from tests.unit.test_decoding_bombs import blank_pages, page_tree, png_bomb

IMAGE_BOMB = "The image is 9400x9400 pixels (88.4 megapixels); at most 50 megapixels are allowed"
PAGE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


async def file_link(api: Api, data: bytes, filename: str, content_type: str) -> str:
    files = api.app[FILES]
    new = NewFile(data, filename, content_type)
    await files.write([new])
    async with files.db.transaction() as tx:
        blob = await files.record(tx, 1, new)
    return URL(files.links.link(blob.uuid, blob.filename)).raw_path


async def assert_health_answers(api: Api) -> None:
    assert (await api.with_key(None).get("/health")).status == 200


@pytest.mark.parametrize("range_header", [None, "bytes=0-3"])
async def test_a_file_link_never_runs_the_file_nor_lets_the_link_be_kept_or_passed_on(api, range_header):
    path = await file_link(api, b"<script>alert(document.cookie)</script>", "page.html", "text/html")
    reply = await api.with_key(None).get(path, headers={"Range": range_header} if range_header else {})
    assert reply.status in (200, 206)
    assert reply.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert {name: reply.headers[name] for name in PAGE_HEADERS} == PAGE_HEADERS


async def test_a_pdf_link_is_not_sandboxed_so_that_browsers_show_it(api):
    reply = await api.with_key(None).get(await file_link(api, b"%PDF-1.7 hello", "a.pdf", "application/pdf"))
    assert reply.headers["Content-Security-Policy"] == "default-src 'none'"
    assert {name: reply.headers[name] for name in PAGE_HEADERS} == PAGE_HEADERS


async def test_every_kind_of_page_carries_the_page_headers(api):
    terms = await api.post(
        "/api/clickwraps", json={"name": "Terms", "kind": "no_document", "content": "Be kind.", "publish": True}
    )
    for path in ["/", f"/c/{terms.json['slug']}", "/s/nosuchslug"]:
        reply = await api.with_key(None).get(path)
        assert reply.headers["Content-Type"].startswith("text/html"), path
        assert "default-src 'none'" in reply.headers["Content-Security-Policy"], path
        assert {name: reply.headers[name] for name in PAGE_HEADERS} == PAGE_HEADERS, path


@pytest.mark.parametrize(
    "file,message",
    [
        (png_bomb(), IMAGE_BOMB),
        (blank_pages(1000), f"The PDF has 1000 pages; at most {previews.MAX_PAGES} are allowed"),
        (page_tree(100), "The PDF's page tree is nested too deeply to be read: more than 64 levels"),
    ],
    ids=["image bomb", "1000 pages", "page tree 100 levels deep"],
)
async def test_a_document_bomb_is_refused_before_decoding_and_the_server_keeps_answering(api, file, message):
    reply = await api.post("/api/templates", json={"name": "Bomb", "documents": [{"name": "bomb", "file": b64(file)}]})
    assert (reply.status, reply.json) == (422, {"error": f"documents[0].file: {message}"})
    await assert_health_answers(api)


@pytest.mark.parametrize("field_type", ["signature", "image", "stamp"])
async def test_an_image_bomb_as_a_value_is_refused_and_the_server_keeps_answering(api, field_type):
    template_id = await template(
        api, fields=[{"name": "Picture", "type": field_type, "role": "First Party", "areas": [area(0.2)]}]
    )
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": template_id,
            "submitters": [
                {"email": "ann@example.com", "values": {"Picture": "data:image/png;base64," + b64(png_bomb())}}
            ],
        },
    )
    assert reply.status == 422 and IMAGE_BOMB in reply.json["error"], reply.json
    await assert_health_answers(api)
    assert await send(api, template_id, {"email": "ann@example.com"})  # and takes the next submission
