"""HTML rendered by WeasyPrint: the bounds of a render, what it fetches, and a server without the libraries."""

import base64
import io
import re
import sys

import pypdf
import pypdfium2
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from signsvc.pdf import font_files, html_render, static_fonts
from signsvc.pdf.errors import PdfError
from tests.support.system import PANGO

LETTER = "8.5in 11in"


def render(html: str, **options):
    return html_render.render(html, page_size=LETTER, **{"max_pages": 10, "seconds": 30.0, **options})


def red_png() -> str:
    output = io.BytesIO()
    Image.new("RGB", (40, 40), (255, 0, 0)).save(output, "PNG")
    return "data:image/png;base64," + base64.b64encode(output.getvalue()).decode()


def embedded_fonts(pdf: bytes) -> list[TTFont]:
    fonts = []
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for font in page["/Resources"]["/Font"].values():
            descriptor = font.get_object()["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            fonts.append(TTFont(io.BytesIO(descriptor["/FontFile2"].get_object().get_data())))
    return fonts


@PANGO
def test_the_packaged_font_is_given_as_static_instances_of_400_and_700_for_any_weight_asked(monkeypatch):
    import weasyprint.pdf.fonts

    instanced = []
    monkeypatch.setattr(weasyprint.pdf.fonts, "instantiateVariableFont", lambda *args, **_: instanced.append(args))
    html = "".join(f'<p style="font-weight: {weight}">Weight {weight}</p>' for weight in (100, 400, 500, 600, 900))
    fonts = embedded_fonts(render(html + "<h1>Heading</h1>").pdf)
    assert instanced == [], "WeasyPrint had no variable font to instance while writing the PDF"
    assert sorted(font["OS/2"].usWeightClass for font in fonts) == [400, 700]


def svg_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def renamed_font(family: str) -> str:
    """The packaged text font at weight 400, named `family`, as a data: URL."""
    font = TTFont(io.BytesIO(static_fonts.instance(font_files.packaged(*font_files.PACKAGED_TEXT), 400)))
    font["name"].setName(family, 1, 3, 1, 0x409)
    output = io.BytesIO()
    font.save(output)
    return "data:font/ttf;base64," + base64.b64encode(output.getvalue()).decode()


def font_names(pdf: bytes) -> set[str]:
    return {
        str(font.get_object()["/BaseFont"]).split("+")[-1]
        for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
        for font in page["/Resources"]["/Font"].values()
    }


@PANGO
def test_a_documents_own_font_is_drawn_and_never_seen_by_another_documents_render():
    declared = f'<style>@font-face {{ font-family: "Own Sans"; src: url("{renamed_font("Own Sans")}"); }}</style>'
    named = "<p style=\"font-family: 'Own Sans'\">Hello</p>"
    packaged = font_names(render(named).pdf)
    assert font_names(render(declared + named).pdf) == {"Own-Sans"}
    # Rendered after it, in the same process: the packaged font again, not the other document's.
    assert font_names(render(named).pdf) == packaged and "Own-Sans" not in packaged


@PANGO
def test_a_font_declared_where_weasyprint_swallows_errors_still_gets_a_configuration_of_its_own():
    # An SVG drawn in an SVG is read while the PDF is written, where WeasyPrint takes any exception for a bad image.
    inner = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><style>@font-face { font-family: "Own Sans"; '
        f'src: url("{renamed_font("Own Sans")}"); }}</style>'
        '<text x="0" y="30" font-family="Own Sans">INNER</text></svg>'
    )
    outer = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><text x="0" y="20">OUTERTEXT</text>'
        f'<image x="0" y="40" width="200" height="40" href="{svg_url(inner)}"/></svg>'
    )
    rendered = render(f'<img src="{svg_url(outer)}">').pdf
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(rendered)).pages)
    assert "OUTERTEXT" in text and "INNER" in text


@PANGO
def test_a_documents_own_element_of_the_header_class_stays_in_its_text_without_a_header():
    rendered = render('<div class="signsvc-header">Our own heading</div><p>Body</p>').pdf
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(rendered)).pages)
    assert "Our own heading" in text and "Body" in text


@PANGO
def test_a_render_past_its_time_is_stopped_naming_the_bound():
    with pytest.raises(PdfError, match=re.escape("The HTML took longer than 0.05 seconds to render")):
        render("<table>" + "<tr><td>cell</td><td>cell</td></tr>" * 5000 + "</table>", seconds=0.05, max_pages=1000)


@PANGO
def test_a_render_past_its_pages_is_stopped_while_laid_out():
    with pytest.raises(PdfError, match="more than 10 pages: a document has at most 10"):
        render('<p style="break-after: page">x</p>' * 5000, seconds=30.0)


@PANGO
def test_a_field_tags_box_is_its_border_box_in_fractions_of_the_page_with_the_page_size_in_points():
    html = (
        '<text-field name="A" style="position: absolute; left: 1in; top: 2in; width: 3in; height: 0.5in"></text-field>'
    )
    [tag] = render(html).tags
    [box] = tag.boxes
    assert (box.page, box.page_width, box.page_height) == (0, 612, 792)
    # Inside the 0.5 in page margins: 1.5 in from the page's left edge, 2.5 in from its top.
    assert (box.x, box.y, box.w, box.h) == pytest.approx((1.5 / 8.5, 2.5 / 11, 3 / 8.5, 0.5 / 11), abs=1e-3)


@PANGO
def test_data_urls_are_drawn_and_https_urls_are_wanted_until_given():
    html = f'<img src="{red_png()}" style="width: 1in"><img src="https://example.com/logo.png">'
    first = render(html)
    assert (first.pdf, first.wanted) == (None, ["https://example.com/logo.png"])
    given = render(html, resources={"https://example.com/logo.png": None})
    assert given.pdf is not None and given.wanted == []
    page = pypdfium2.PdfDocument(given.pdf)[0].render(scale=1).to_pil().convert("RGB")
    # 8px of body margin inside 0.5 in of page margin; the image 1 in (72 points) square.
    assert page.getpixel((36 + 6 + 30, 36 + 6 + 30)) == (255, 0, 0)


@PANGO
def test_an_image_above_the_pixel_bound_is_left_out_undecoded():
    output = io.BytesIO()
    Image.new("1", (8000, 7000)).save(output, "PNG")  # 56 megapixels, black
    source = "data:image/png;base64," + base64.b64encode(output.getvalue()).decode()
    rendering = render(f'<img src="{source}" style="width: 2in; height: 2in">')
    page = pypdfium2.PdfDocument(rendering.pdf)[0].render(scale=1).to_pil().convert("L")
    assert page.getpixel((36 + 6 + 72, 36 + 6 + 72)) > 200


@PANGO
def test_other_schemes_are_refused_without_being_wanted():
    rendering = render('<img src="file:///etc/hostname"><img src="http://example.com/a.png"><img src="ftp://x/y">')
    assert rendering.pdf is not None and rendering.wanted == []


@PANGO
def test_not_wanting_leaves_unknown_https_urls_out():
    rendering = render('<img src="https://example.com/logo.png">', wanting=False)
    assert rendering.pdf is not None and rendering.wanted == []


def test_without_weasyprint_or_its_libraries_the_message_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # what an import that fails to load Pango amounts to
    with pytest.raises(PdfError, match=re.escape(html_render.NOT_INSTALLED)):
        render("<p>x</p>")
