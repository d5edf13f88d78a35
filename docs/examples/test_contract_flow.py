"""A sample application's test suite: the official Python client talks to signsvc as it would to the
hosted service, and the `signsvc` fixture plays the other side (signers, time, webhooks).

Run it with `pytest docs/examples` once signsvc is installed: its pytest plugin provides `signsvc`.
"""

import base64
from datetime import datetime, timedelta

import pytest
from docuseal import DocusealApi
from fpdf import FPDF

# The official client opens a connection per call and leaves it open.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def contract_pdf() -> str:
    """A one-page contract as the API takes it: base64."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=14)
    pdf.cell(text="Sales contract")
    return base64.b64encode(bytes(pdf.output())).decode()


def area(y: float) -> dict:
    return {"x": 0.1, "y": y, "w": 0.4, "h": 0.05, "page": 1}


@pytest.fixture
def client(signsvc) -> DocusealApi:
    """The application's client, pointed at signsvc instead of the hosted service."""
    return DocusealApi(key=signsvc.key, url=signsvc.api_url)


@pytest.fixture
def template(client) -> dict:
    return client.create_template_from_pdf({"name": "Sales contract", "documents": [{
        "name": "contract", "file": contract_pdf(), "fields": [
            {"name": "Seller", "role": "Seller", "type": "signature", "areas": [area(0.2)]},
            {"name": "Buyer", "role": "Buyer", "type": "signature", "areas": [area(0.4)]}]}]})


def test_both_parties_sign_and_the_application_hears_it(signsvc, client, template):
    submission = client.create_submission({"template_id": template["id"], "submitters": [
        {"role": "Seller", "email": "seller@example.com"}, {"role": "Buyer", "email": "buyer@example.com"}]})
    seller, buyer = submission["submitters"]

    invitation = signsvc.emails()[0]
    assert invitation["to"] == "seller@example.com" and invitation["links"]

    signsvc.sign_as(seller, {"Seller": "Sam Seller"})
    signsvc.sign_as(buyer, {"Buyer": "Bea Buyer"})

    completed = signsvc.wait_for_webhook("submission.completed", id=submission["id"])
    assert completed["data"]["status"] == "completed"
    assert [hook["data"]["email"] for hook in signsvc.webhooks("form.completed")] == [
        "seller@example.com", "buyer@example.com"]
    assert client.get_submission(submission["id"])["documents"], "the signed documents exist"


def test_a_submission_nobody_signs_expires_after_a_week(signsvc, client, template):
    in_a_week = datetime.fromisoformat(signsvc.now()) + timedelta(days=7)
    submission = client.create_submission({"template_id": template["id"], "expire_at": in_a_week.isoformat(),
                                           "submitters": [{"role": "Seller", "email": "seller@example.com"}]})
    signsvc.advance(timedelta(days=7, seconds=1).total_seconds())
    expired = signsvc.wait_for_webhook("submission.expired", id=submission["id"])
    assert expired["data"]["status"] == "expired"
    assert client.get_submission(submission["id"])["status"] == "expired"


def test_a_declined_submission_reaches_the_application(signsvc, client, template):
    submission = client.create_submission({"template_id": template["id"], "submitters": [
        {"role": "Seller", "email": "seller@example.com"}]})
    signsvc.decline_as(submission["submitters"][0], "The price is wrong")
    declined = signsvc.wait_for_webhook("form.declined")
    assert declined["data"]["decline_reason"] == "The price is wrong"
