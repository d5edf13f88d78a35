"""The mailbox the per-recipient email cap counts an address as."""

import pytest

from storage.emails import recipient


@pytest.mark.parametrize(
    "address",
    [
        "victim@example.com",
        "Victim@Example.COM",
        "victim+1@example.com",
        "victim@example.com.",
        "VICTIM+a+b@example.com.",
        " victim@example.com ",
    ],
)
def test_spellings_of_one_mailbox_are_one_recipient(address):
    assert recipient(address) == "victim@example.com"


def test_other_mailboxes_stay_apart():
    assert (
        len(
            {
                recipient(a)
                for a in [
                    "victim@example.com",
                    "victim1@example.com",
                    "victim@example.org",
                    "victim.x@example.com",
                    "victim@mail.example.com",
                ]
            }
        )
        == 5
    )


def test_an_address_without_an_at_sign_is_kept_in_lower_case():
    assert recipient("Victim+1") == "victim+1"
