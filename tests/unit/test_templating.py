"""`templating.render`: a handler's data never silently replaces a value of the context processors."""

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from signsvc.http.web import templating


def request_of_app_with(*processors: templating.ContextProcessor) -> web.Request:
    app = web.Application()
    templating.setup(app, context_processors=processors)
    return make_mocked_request("GET", "/", app=app)


def test_a_handlers_data_naming_a_context_processors_value_is_a_type_error_naming_the_keys():
    request = request_of_app_with(lambda _: {"csrf": "token", "language": "de"}, lambda _: {"t": str})
    with pytest.raises(TypeError, match=r"^message\.html: .* processors' csrf, t$"):
        templating.render(request, "message.html", {"csrf": "mine", "t": len, "title": "Hello"})
