"""The document id footer: a test account's mark carries the id after a bar; a live account's says `Document ID`."""

from signsvc.results import document_id


def test_the_document_id_is_the_md5_of_the_submission_slug_in_upper_case_hex():
    assert document_id.of("abc") == "900150983CD24FB0D6963F7D28E17F72"


def test_a_test_accounts_footer_carries_the_document_id_after_a_bar_when_the_setting_is_on():
    assert document_id.footer(test_mode=True, document_id="AB") == "Test document, not legally binding | ID: AB"
    assert document_id.footer(test_mode=True, document_id=None) == "Test document, not legally binding"
    assert document_id.footer(test_mode=False, document_id="AB") == "Document ID: AB"
    assert document_id.footer(test_mode=False, document_id=None) is None
