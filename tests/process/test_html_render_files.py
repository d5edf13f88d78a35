"""What a `python run.py` rendering HTML leaves in the temporary directory: nothing, once it stops. Each PDF pool
worker keeps the packaged fonts' files of the font configuration it shares between renders in a folder of its own,
removed when the worker ends."""

import aiohttp

from tests.support import service
from tests.support.system import PANGO

pytestmark = PANGO

KEY = "html-render-files-key-00000000000000000000"


async def test_the_pool_workers_font_files_are_removed_when_the_server_stops(tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    server = await service.start(
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        SIGNSVC_API_KEY=KEY,
        TMPDIR=str(temporary),
    )
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            for number in range(3):
                body = {"name": f"Letter {number}", "html": f"<p>Letter {number}</p><text-field name='N'></text-field>"}
                async with session.post(f"{server.api}/templates/html", json=body) as reply:
                    assert reply.status == 201, await reply.text()
        assert [path.name for path in temporary.iterdir() if path.name.startswith("weasyprint-")], "fonts in use"
    finally:
        assert await server.stop() == 0
    assert [path.name for path in temporary.iterdir() if path.name.startswith("weasyprint-")] == []
