"""Documents made from an application's own data, through the official Python client: a PDF with text tags,
an HTML contract with field tags, and a Word document with [[variables]]. Each test is a worked example of
docs/documents-from-data.md, and runs as written with `pytest docs/examples` once signsvc is installed.
"""

import base64
import io
import urllib.request

import pytest
from docuseal import DocusealApi
from fpdf import FPDF
from pypdf import PdfReader

# The official client opens a connection per call and leaves it open.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.fixture
def client(signsvc) -> DocusealApi:
    return DocusealApi(key=signsvc.key, url=signsvc.api_url)


def signed_text(client: DocusealApi, submission_id: int) -> str:
    """The text of the signed document, as a reader of the PDF sees it."""
    url = client.get_submission(submission_id)["documents"][0]["url"]
    with urllib.request.urlopen(url) as answer:
        return "".join(page.extract_text() for page in PdfReader(io.BytesIO(answer.read())).pages)


def test_text_tags_in_a_pdf_become_fields_and_leave_the_page(signsvc, client):
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Client name: {{Name;role=Client}} (as on the passport)", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(text="Signature: {{Signature;type=signature;role=Client}}")

    template = client.create_template_from_pdf(
        {
            "name": "Service agreement",
            "documents": [{"name": "agreement", "file": base64.b64encode(pdf.output()).decode()}],
        }
    )
    assert [(field["name"], field["type"]) for field in template["fields"]] == [
        ("Name", "text"),
        ("Signature", "signature"),
    ]
    assert [role["name"] for role in template["submitters"]] == ["Client"]

    submission = client.create_submission(
        {"template_id": template["id"], "submitters": [{"role": "Client", "email": "client@example.com"}]}
    )
    signsvc.sign_as(submission["submitters"][0], {"Name": "Ada Lovelace", "Signature": "Ada Lovelace"})
    signsvc.wait_for_webhook("submission.completed", id=submission["id"])

    text = signed_text(client, submission["id"])
    assert "Ada Lovelace" in text and "(as on the passport)" in text
    assert "{{" not in text, "the tags are gone from what the signer and the reader see"


def test_html_field_tags_become_fields_where_they_are_drawn(signsvc, client):
    template = client.create_template_from_html(
        {
            "name": "NDA",
            "size": "A4",
            "html": """
                <h1>Mutual non-disclosure agreement</h1>
                <p>Between Acme Ltd and <text-field name="Company" role="Partner"></text-field>.</p>
                <p style="page-break-before: always">Signed:
                  <signature-field name="Signature" role="Partner" style="width: 200px; height: 60px">
                  </signature-field></p>""",
            "html_footer": '<p>Page <span class="pageNumber"></span> of <span class="totalPages"></span></p>',
        }
    )
    company, signature = template["fields"]
    assert company["areas"][0]["page"] == 0 and signature["areas"][0]["page"] == 1
    assert round(signature["areas"][0]["w"] * 794) == 200, "200 CSS px on an A4 page 794 px wide"

    submission = client.create_submission(
        {"template_id": template["id"], "submitters": [{"role": "Partner", "email": "partner@example.com"}]}
    )
    signsvc.sign_as(submission["submitters"][0], {"Company": "Globex Corp", "Signature": "Hank Scorpio"})
    signsvc.wait_for_webhook("submission.completed", id=submission["id"])

    text = signed_text(client, submission["id"])
    assert "Globex Corp" in text and "Page 2 of 2" in text
