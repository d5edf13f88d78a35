"""An invitation email as composed for a signer, as the mail tests make them."""

from __future__ import annotations

from signsvc.infra import mail
from signsvc.submissions import invitations

LINK = "http://signsvc.test/s/sLuG123"


def invite(**changes) -> mail.Composed:
    arguments = dict(
        account_name="Acme",
        template_name="NDA",
        submitter_name="Bob Stone",
        submitter_email="bob@example.com",
        link=LINK,
        expire_at=None,
        message=None,
    )
    return invitations.compose(**{**arguments, **changes})
