"""The PDF pool's workers start with the fonts parsed (and the engines imported), by the forkserver once."""

import subprocess
import sys

from signsvc.pdf import record_pages

# In a process of its own: the forkserver reads what to load when it starts, and this test process may
# have started one already.
PROGRAM = """
import asyncio
from signsvc.infra.pool import PdfPool
from signsvc.pdf import font_cache

async def main():
    pool = PdfPool(workers=1)
    try:
        print("\\n".join(await pool.run(font_cache.loaded)))
    finally:
        pool.close()

asyncio.run(main())
"""


def test_a_new_worker_has_the_fonts_parsed_before_its_first_task():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert set(record_pages.every_font(None)) <= set(lines)
