"""Tools: the merge tool."""

import base64
import io

import pypdf
import pytest

from tests.support.documents import b64, pdf, png
from tests.support.samples import encrypted


def pages(data: str) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(base64.b64decode(data)))
    return [page.extract_text() for page in reader.pages]


async def test_merge_answers_one_pdf_of_every_page_in_order(api):
    reply = await api.post("/api/tools/merge", json={"files": [b64(pdf(1, text="First")), b64(pdf(2, text="Second"))]})
    assert reply.status == 200, reply.json
    assert pages(reply.json["data"]) == ["First, page 1", "Second, page 1", "Second, page 2"]


async def test_merge_accepts_a_data_uri_prefix(api):
    reply = await api.post(
        "/api/tools/merge", json={"files": ["data:application/pdf;base64," + b64(pdf()), b64(pdf())]}
    )
    assert reply.status == 200 and len(pages(reply.json["data"])) == 2


@pytest.mark.parametrize(
    "body,error",
    [
        ({}, "Files are required: files must be an array of base64 PDFs"),
        ({"files": []}, "Files are required: files must be an array of base64 PDFs"),
        ({"files": "abc"}, "files must be an array of base64 PDFs (strings)"),
        ({"files": [1, 2]}, "files must be an array of base64 PDFs (strings)"),
        ({"files": [b64(pdf())]}, "At least 2 files are required, and at most 50"),
        ({"files": [b64(pdf())] * 51}, "At least 2 files are required, and at most 50"),
        (
            {"files": [b64(pdf()), "not base64!"]},
            "files[1] is not valid base64: ' ' at character 4 is not a base64 character",
        ),
        ({"files": [b64(png()), b64(pdf())]}, "files[0] is not a PDF"),
        ({"files": [b64(pdf()), b64(pdf()[:200])]}, None),
        ({"files": [b64(pdf()), b64(encrypted(pdf(), user="secret"))]}, None),
    ],
)
async def test_merge_refuses_bad_input_with_a_422_naming_the_file(api, body, error):
    reply = await api.post("/api/tools/merge", json=body)
    assert reply.status == 422, reply.json
    if error:
        assert reply.json == {"error": error}
    else:
        assert reply.json["error"].endswith("(files[1])")
