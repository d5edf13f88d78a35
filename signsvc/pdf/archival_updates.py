"""The changes allowed after the service's seal without the file ceasing to be the one it issued: revisions
that only add or update the DSS (certificates, CRLs, OCSP responses) and add invisible document timestamps.

pyHanko's default policy also calls any metadata or document-information change an "LTA update"; this
one allows of those only what every incremental writer (pyHanko's included) touches, the document
information's /ModDate and /Producer, so any other change counts as an edit would.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyhanko.pdf_utils.reader import HistoricalResolver, RawPdfPath
from pyhanko.sign.diff_analysis import (
    CatalogModificationRule,
    DSSCompareRule,
    FormUpdatingRule,
    ModificationLevel,
    ObjectStreamRule,
    SigFieldCreationRule,
    SigFieldModificationRule,
    StandardDiffPolicy,
    XrefStreamRule,
)
from pyhanko.sign.diff_analysis.commons import safe_whitelist
from pyhanko.sign.diff_analysis.rules_api import Context, ReferenceUpdate, WhitelistRule

WRITER_KEYS = {"/ModDate", "/Producer"}


class WriterInfoRule(WhitelistRule):
    """The document information may change only in the keys a writer sets on each update."""

    def apply(self, old: HistoricalResolver, new: HistoricalResolver) -> Iterable[ReferenceUpdate]:
        new_ref = new.trailer_view.get_value_as_reference("/Info", optional=True)
        if new_ref is None:
            return
        old_ref = old.trailer_view.get_value_as_reference("/Info", optional=True)
        if _other_keys(old, old_ref) != _other_keys(new, new_ref):
            return  # left unexplained: the revision then counts as an edit
        context = Context.from_absolute(old, RawPdfPath("/Info"))
        yield from map(ReferenceUpdate.curry_ref(context_checked=context), safe_whitelist(old, old_ref, new_ref))


def _other_keys(revision: HistoricalResolver, reference: Any) -> dict[str, Any]:
    if reference is None:
        return {}
    info = revision.get_object(reference)
    return {str(key): info.raw_get(key) for key in info if str(key) not in WRITER_KEYS}


# Of the catalog, only what the DSS, form and metadata rules vet may change (pyHanko also lets /Version,
# /Extensions and /MarkInfo change); of the form, only its fields and /SigFlags (a document timestamp's field
# is added): a new /DA, /DR or /NeedAppearances changes how the form looks.
CATALOG_KEYS = frozenset({"/AcroForm", "/DSS", "/Metadata"})
ACROFORM_KEYS = frozenset({"/Fields", "/SigFlags"})

POLICY = StandardDiffPolicy(
    global_rules=[
        CatalogModificationRule(ignored_keys=CATALOG_KEYS),
        XrefStreamRule().as_qualified(ModificationLevel.LTA_UPDATES),
        ObjectStreamRule().as_qualified(ModificationLevel.LTA_UPDATES),
        DSSCompareRule().as_qualified(ModificationLevel.LTA_UPDATES),
        WriterInfoRule().as_qualified(ModificationLevel.LTA_UPDATES),
    ],
    form_rule=FormUpdatingRule(
        field_rules=[SigFieldCreationRule(), SigFieldModificationRule()], ignored_acroform_keys=ACROFORM_KEYS
    ),
)


def only_archival(status: Any) -> bool:
    """Whether everything after the signed revision was DSS and document-timestamp updates (a status
    validated with POLICY)."""
    level = getattr(status, "modification_level", None)
    return level is not None and level <= ModificationLevel.LTA_UPDATES
