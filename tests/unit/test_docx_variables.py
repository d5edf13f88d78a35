"""The `[[...]]` language of DOCX documents (signsvc/templates/docx_variables): each construct rendered into a real
DOCX made with python-docx and read back, tags split across runs, loops over table rows and paragraphs, values
written as text and never as markup, HTML values, the variables schema, errors naming the tag, and the bounds."""

import io
import zipfile

import docx
import pytest

from signsvc.templates import docx_variables, variables_schema
from signsvc.templates.docx_variables import expressions, rendering, tags
from signsvc.templates.docx_variables.problems import DocxProblem


def make(*paragraphs, table=None, header=None) -> bytes:
    """A DOCX of paragraphs (a text, or a list of runs: a text or (text, {"bold": True})), then a table of rows."""
    document = docx.Document()
    for paragraph in paragraphs:
        made = document.add_paragraph()
        for run in [paragraph] if isinstance(paragraph, str) else paragraph:
            text, formats = (run, {}) if isinstance(run, str) else run
            added = made.add_run(text)
            added.bold, added.italic = formats.get("bold"), formats.get("italic")
    if table:
        made_table = document.add_table(rows=len(table), cols=len(table[0]))
        for row, cells in zip(made_table.rows, table, strict=True):
            for cell, text in zip(row.cells, cells, strict=True):
                cell.text = text
    if header:
        document.sections[0].header.paragraphs[0].text = header
    output = io.BytesIO()
    document.save(output)
    return output.getvalue()


def rendered(data: bytes, variables: dict | None = None) -> docx.document.Document:
    return docx.Document(io.BytesIO(docx_variables.render(data, variables or {})))


def texts(data: bytes, variables: dict | None = None) -> list[str]:
    return [paragraph.text for paragraph in rendered(data, variables).paragraphs]


def rows(data: bytes, variables: dict | None = None) -> list[list[str]]:
    return [[cell.text for cell in row.cells] for row in rendered(data, variables).tables[0].rows]


def refusal(data: bytes, variables: dict | None = None) -> str:
    with pytest.raises(DocxProblem) as caught:
        docx_variables.render(data, variables or {})
    assert caught.value.status == 422
    return caught.value.message


# Values


def test_a_value_tag_writes_strings_numbers_booleans_and_nested_values():
    data = make("[[name]] of [[company.name]]: [[total]], [[price]], [[vip]], [[missing]], [[company.missing.deep]].")
    variables = {"name": "John Doe", "company": {"name": "Acme LLC"}, "total": 1500, "price": 12.5, "vip": True}
    assert texts(data, variables) == ["John Doe of Acme LLC: 1500, 12.5, true, , ."]


def test_a_missing_value_writes_nothing_and_a_list_of_plain_values_is_joined():
    assert texts(make("[[a]]|[[b]]|[[c]]"), {"b": ["x", 2, None], "c": {"k": "v"}}) == ["|x, 2, |"]


def test_a_tag_split_across_runs_of_different_formatting_is_found_and_takes_its_first_runs_format():
    data = make(["Dear ", ("[[na", {"bold": True}), ("me", {"italic": True}), "]], welcome"])
    document = rendered(data, {"name": "Ann"})
    assert document.paragraphs[0].text == "Dear Ann, welcome"
    ann = next(run for run in document.paragraphs[0].runs if run.text == "Ann")
    assert ann.bold is True


def test_the_brackets_of_a_tag_may_be_apart_by_spaces_and_its_text_padded():
    assert texts(make("[ [ name ] ] and [[  name  ]]"), {"name": "Ann"}) == ["Ann and Ann"]


def test_a_value_is_written_as_text_never_as_markup():
    value = 'a < b & c > "d" </w:t></w:r><w:r><w:t>injected'
    data = docx_variables.render(make("[[v]]"), {"v": value})
    assert docx.Document(io.BytesIO(data)).paragraphs[0].text == value
    xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    assert "a &lt; b &amp; c &gt;" in xml
    assert "<w:t>injected" not in xml


def test_characters_xml_cannot_hold_are_left_out_and_line_breaks_become_words():
    document = rendered(make("[[v]]"), {"v": "one\x00\x07\ntwo\tthree"})
    assert document.paragraphs[0].text == "one\ntwo\tthree"


def test_an_html_value_becomes_formatted_runs_lines_and_bullets():
    notes = "<p>Terms</p><ul><li><b>Delivery</b> in 5 days</li><li><i>Returns</i> &amp; refunds</li></ul>"
    document = rendered(make("Notes: [[notes]]"), {"notes": notes})
    assert document.paragraphs[0].text == "Notes: Terms\n\u2022 Delivery in 5 days\n\u2022 Returns & refunds"
    formats = {run.text: (run.bold, run.italic) for run in document.paragraphs[0].runs}
    assert formats["Delivery"] == (True, None)
    assert formats["Returns"] == (None, True)


def test_numbered_lists_and_line_breaks_of_html_and_scripts_left_out():
    html = "<ol><li>one</li><li>two<br>more</li></ol><script>alert(1)</script>"
    assert texts(make("[[v]]"), {"v": html}) == ["1. one\n2. two\nmore"]


def test_a_text_that_only_looks_like_a_tag_is_plain_text():
    assert texts(make("[[v]]"), {"v": "<John & Co>"}) == ["<John & Co>"]


def test_headers_are_rendered_too():
    document = rendered(make("body [[a]]", header="Header [[a]]"), {"a": "A"})
    assert document.sections[0].header.paragraphs[0].text == "Header A"
    assert document.paragraphs[0].text == "body A"


# Conditions


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("is_vip", True),
        ("!is_vip", False),
        ("missing", False),
        ("total > 1000", True),
        ("total < 1000", False),
        ("total >= 1500", True),
        ("total <= 1499.5", False),
        ("total == 1500", True),
        ("total = 1500", True),
        ("total != 1500", False),
        ('country == "US"', True),
        ("country == 'US'", True),
        ('total > 1000 AND country == "US"', True),
        ('total > 1000 and country == "FR"', False),
        ('total > 2000 OR country == "US"', True),
        ("total > 2000 || is_vip", True),
        ("total > 2000 && is_vip", False),
        ("!(total > 2000 OR !is_vip)", True),
        ("(total > 2000 OR is_vip) AND count == 0", True),
        ("is_vip == true", True),
        ("flag == false", True),
        ("flag", False),
        ("text_amount > 999", True),
        ("total > 1499.5", True),
        ("total < 1" + "0" * 400, True),
        ("customer.tier == 'gold'", True),
        ("empty_list", False),
        ("words", False),
        ("-5 < count", True),
        ("missing == ''", True),
        ("country > 'UA'", True),
    ],
)
def test_a_condition_keeps_or_drops_its_block(condition, holds):
    variables = {
        "is_vip": True,
        "total": 1500,
        "country": "US",
        "count": 0,
        "flag": "false",
        "text_amount": "1250.00",
        "customer": {"tier": "gold"},
        "empty_list": [],
        "words": "",
    }
    data = make(f"[[if: {condition}]]yes[[else]]no[[end]]")
    assert texts(data, variables) == ["yes" if holds else "no"]


def test_a_block_over_paragraphs_keeps_or_drops_them_and_its_tags_paragraphs_disappear():
    data = make(
        "Intro", "[[if:is_vip]]", "Thank you for being a VIP!", "[[else]]", "Thank you!", "[[end:is_vip]]", "End"
    )
    assert texts(data, {"is_vip": True}) == ["Intro", "Thank you for being a VIP!", "End"]
    assert texts(data, {"is_vip": False}) == ["Intro", "Thank you!", "End"]


def test_text_beside_a_block_tag_in_its_paragraph_stays():
    data = make("Before [[if:x]]", "Inside", "[[end]] after")
    assert texts(data, {"x": True}) == ["Before ", "Inside", " after"]
    assert texts(data, {"x": False}) == ["Before ", " after"]


def test_blocks_nest():
    data = make("[[if:a]]A[[if:b]]B[[else]]notB[[end]][[end]]!")
    assert texts(data, {"a": True, "b": False}) == ["AnotB!"]
    assert texts(data, {"a": False, "b": True}) == ["!"]


# Loops


def test_a_loop_in_one_table_row_repeats_the_row():
    data = make(
        table=[
            ["Name", "Qty", "Price"],
            ["[[for:invoices]][[invoice.name]]", "[[invoice.quantity]]", "[[invoice.price]][[end]]"],
            ["Total", "", "[[total]]"],
        ]
    )
    invoices = [{"name": "Laptop", "quantity": "2", "price": "1250.00"}, {"name": "Mouse", "quantity": 1, "price": 150}]
    assert rows(data, {"invoices": invoices, "total": 1400}) == [
        ["Name", "Qty", "Price"],
        ["Laptop", "2", "1250.00"],
        ["Mouse", "1", "150"],
        ["Total", "", "1400"],
    ]
    assert rows(data, {"invoices": []}) == [["Name", "Qty", "Price"], ["Total", "", ""]]


def test_a_loop_over_several_rows_repeats_them_all():
    data = make(table=[["[[for:people]]Name", "[[person.name]]"], ["Age", "[[person.age]][[end]]"]])
    assert rows(data, {"people": [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}]}) == [
        ["Name", "Ann"],
        ["Age", "30"],
        ["Name", "Bob"],
        ["Age", "40"],
    ]


def test_a_loop_over_paragraphs_repeats_them_with_each_element_bound_to_the_singular_name():
    data = make("List:", "[[for:categories]]", "- [[category]]", "[[end]]", "Done")
    assert texts(data, {"categories": ["A", "B", "C"]}) == ["List:", "- A", "- B", "- C", "Done"]


def test_a_loop_within_a_paragraph_repeats_its_runs_and_loops_nest():
    data = make("[[for:boxes]][[box.name]]:[[for:box.items]] [[item]][[end]];[[end]]")
    boxes = [{"name": "a", "items": [1, 2]}, {"name": "b", "items": []}]
    assert texts(data, {"boxes": boxes}) == ["a: 1 2;b:;"]


def test_a_loop_reads_outer_variables_and_conditions_inside_it():
    data = make("[[for:items]][[if:item.paid]][[item.name]] paid by [[buyer]]. [[end]][[end]]")
    items = [{"name": "x", "paid": True}, {"name": "y", "paid": False}]
    assert texts(data, {"items": items, "buyer": "Ann"}) == ["x paid by Ann. "]


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("items", "item"),
        ("invoices", "invoice"),
        ("categories", "category"),
        ("boxes", "box"),
        ("people", "person"),
        ("addresses", "address"),
        ("watches", "watch"),
        ("children", "child"),
        ("data", "datum"),
        ("list", "list_item"),
    ],
)
def test_a_loop_binds_the_singular_of_its_lists_name(plural, singular):
    assert tags.singular(plural) == singular


def test_a_loop_over_something_not_a_list_is_refused_naming_the_tag():
    assert refusal(make("[[for:items]]x[[end]]"), {"items": "text"}) == "[[for:items]]: items must be a list, not str"


# The schema


def test_the_variables_schema_lists_each_variable_with_the_type_its_use_says():
    data = make(
        "[[signer_name]] [[company.name]]",
        '[[if:is_vip]]VIP[[end]] [[if:total > 1000 AND country == "US"]]Free[[end]]',
        table=[["[[for:invoices]][[invoice.name]]", "[[invoice.price]][[end]]"], ["[[for:tags]][[tag]][[end]]", ""]],
    )
    assert docx_variables.variables_schema(data) == {
        "signer_name": {"type": "string"},
        "company": {"type": "object", "properties": {"name": {"type": "string"}}},
        "is_vip": {"type": "boolean"},
        "total": {"type": "number"},
        "country": {"type": "string"},
        "invoices": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "string"}}},
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    }


def test_a_variable_compared_with_a_number_is_a_number_though_also_written():
    assert docx_variables.variables_schema(make("[[total]] [[if: total >= 10]]x[[end]]")) == {
        "total": {"type": "number"}
    }


def test_the_union_of_schemas_keeps_the_wider_type_the_first_on_a_tie_and_required_when_any_requires():
    first = {
        "name": {"type": "string", "description": "first"},
        "due": {"type": "string"},
        "company": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    second = {
        "name": {"type": "string", "required": True, "description": "second"},
        "due": {"type": "date"},
        "company": {"type": "object", "properties": {"vat": {"type": "string", "required": True}}},
        "items": {"type": "array"},
    }
    assert variables_schema.union([first, second, {}]) == {
        "name": {"type": "string", "description": "first", "required": True},
        "due": {"type": "date"},
        "company": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "vat": {"type": "string", "required": True}},
        },
        "items": {"type": "array"},
    }
    assert variables_schema.union([]) == {}


def test_a_document_without_tags_has_an_empty_schema():
    data = make("Plain [text] and {{Sign;type=signature}}")
    assert docx_variables.variables_schema(data) == {}
    assert not docx_variables.has_tags(data)


# Errors


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("[[if: total >]]x[[end]]", "[[if: total >]]: expected a value after >"),
        ("[[if: (a]]x[[end]]", "[[if: (a]]: expected ) to close ("),
        ("[[if: a AND]]x[[end]]", "[[if: a AND]]: expected a value after AND"),
        ("[[if: a b]]x[[end]]", "[[if: a b]]: unexpected b"),
        ("[[if: 'open]]x[[end]]", "[[if: 'open]]: the text opened by ' at character 2 is not closed"),
        ("[[if:]]x[[end]]", "[[if:]]: expected a condition"),
        ("[[if: a # b]]x[[end]]", "[[if: a # b]]: unexpected character '#'"),
        (
            "[[for: 1items]]x[[end]]",
            "[[for: 1items]]: '1items' is not a list's name (letters, digits and _, parts joined by .)",
        ),
        (
            "[[first name]]",
            "[[first name]]: 'first name' is not a variable name (letters, digits and _, parts joined by .)",
        ),
        ("[[]]", "[[]]: expected a variable name, if:, for:, else or end"),
        ("[[if x]]a[[end]]", "[[if x]]: 'if x' is not a variable name (letters, digits and _, parts joined by .)"),
        ("[[if]]a[[end]]", "[[if]]: expected [[if: ...]] with a colon"),
        ("[[FOR]]a[[end]]", "[[FOR]]: expected [[for: ...]] with a colon"),
        ("[[if:a]]x", "[[if:a]]: is not closed: add [[end]] after the block"),
        ("x[[end]]", "[[end]]: there is no [[if:...]] or [[for:...]] to end"),
        ("[[else]]", "[[else]]: must be inside an [[if:...]] block"),
        ("[[for:items]][[else]][[end]]", "[[else]]: must be inside an [[if:...]] block"),
        ("[[if:a]][[else]][[else]][[end]]", "[[else]]: [[if:a]] already has an [[else]]"),
        ("Dear [[name", "[[name...: is not closed by ]] in its paragraph"),
    ],
)
def test_a_wrong_tag_is_refused_naming_it_and_what_is_wrong(written, message):
    assert refusal(make(written)) == message


def test_a_block_from_the_body_into_a_table_cell_is_refused():
    data = make("[[if:a]]", table=[["x[[end]]"]])
    assert refusal(data) == (
        "[[if:a]]: the block's tags must be in one paragraph, in paragraphs of one cell or of the body, "
        "or in rows of one table"
    )


def test_a_file_that_is_no_docx_is_refused():
    with pytest.raises(DocxProblem, match="not a DOCX document"):
        docx_variables.render(b"%PDF-1.7 not a zip", {})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        package.writestr("word/other.xml", "<x/>")
    with pytest.raises(DocxProblem, match=r"it has no word/document\.xml"):
        docx_variables.variables_schema(buffer.getvalue())


def test_a_part_that_declares_entities_is_refused():
    data = make("x")
    source, buffer = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for entry in source.infolist():
            content = source.read(entry)
            if entry.filename == "word/document.xml":
                content = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]>' + content.split(b"?>", 1)[1]
            package.writestr(entry, content)
    with pytest.raises(DocxProblem, match="declares a DTD"):
        docx_variables.render(buffer.getvalue(), {})


# Bounds


def test_blocks_nest_at_most_twenty_deep():
    data = make("[[if:a]]" * 21 + "x" + "[[end]]" * 21)
    assert refusal(data, {"a": True}) == "[[if:a]]: blocks nest at most 20 levels deep"


def test_loops_may_copy_only_so_much():
    data = make("[[for:rows]][[for:rows]][[for:rows]]x[[end]][[end]][[end]]")
    message = refusal(data, {"rows": list(range(100))})
    assert message.endswith(
        f"the document would be too large: loops may copy at most {rendering.MAX_COPIED_ELEMENTS} elements in all"
    )


def test_values_may_write_only_so_much():
    data = make("[[for:rows]][[v]][[end]]")
    message = refusal(data, {"rows": list(range(100)), "v": "x" * 60_000})
    assert message == (
        f"[[v]]: the document would be too large: values may write at most {rendering.MAX_WRITTEN_CHARACTERS} "
        "characters in all"
    )


def test_a_document_holds_a_bounded_number_of_tags():
    data = make("[[a]]" * (docx_variables.MAX_TAGS + 1))
    assert refusal(data) == f"the DOCX document has more than {docx_variables.MAX_TAGS} [[...]] tags"


def test_a_condition_has_a_bounded_length_and_nesting():
    with pytest.raises(expressions.SyntaxProblem, match="at most 1000 characters"):
        expressions.parse("a OR " * 250 + "a")
    with pytest.raises(expressions.SyntaxProblem, match="nests at most 32 levels"):
        expressions.parse("(" * 40 + "a" + ")" * 40)


def test_a_rendered_document_keeps_its_section_and_opens_again():
    data = make("[[if:x]]", "A", "[[end]]", "[[for:items]]", "[[item]]", "[[end]]")
    output = docx_variables.render(data, {"x": True, "items": [1, 2]})
    document = docx.Document(io.BytesIO(output))
    assert [p.text for p in document.paragraphs] == ["A", "1", "2"]
    assert len(document.sections) == 1


def test_a_cell_a_block_leaves_without_a_paragraph_gets_an_empty_one():
    document = docx.Document()
    cell = document.add_table(rows=1, cols=2).cell(0, 0)
    cell.paragraphs[0].text = "[[if:x]]"
    cell.add_paragraph("inside")
    cell.add_paragraph("[[end]]")
    buffer = io.BytesIO()
    document.save(buffer)
    output = docx_variables.render(buffer.getvalue(), {"x": False})
    table = docx.Document(io.BytesIO(output)).tables[0]
    assert [len(cell.paragraphs) for cell in table.rows[0].cells] == [1, 1]
    assert [cell.text for cell in table.rows[0].cells] == ["", ""]
