"""Loaders: what a page of records shows besides itself (submitters, templates, authors, files, result documents,
audit trails), each relation read for the whole page in one statement, whatever its size. `signsvc.wire` shapes
what they answer."""
