"""Office documents (DOCX, DOC, ODT, RTF, XLSX, PPTX) become PDF through LibreOffice run headless."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import tempfile
from pathlib import Path

from signsvc.infra import errors

log = logging.getLogger(__name__)

# The import filter is named, never guessed: left to guess, LibreOffice imports bytes it cannot read
# as plain text (a PDF of noise) and would open HTML that fetches remote images.
FILTERS = {
    "docx": "MS Word 2007 XML",
    "doc": "MS Word 97",
    "odt": "writer8",
    "rtf": "Rich Text Format",
    "xlsx": "Calc MS Excel 2007 XML",
    "pptx": "Impress MS PowerPoint 2007 XML",
}


class ConversionUnavailable(errors.Invalid):
    message = "Office documents cannot be converted: LibreOffice is not installed on this server"


class ConversionFailed(errors.Invalid):
    """The document was not converted: it is unreadable as its kind, or took too long."""


class OfficeConverter:
    """Runs at most `max_parallel` conversions at once, each in its own LibreOffice profile.

    Two soffice processes sharing a profile make the second exit silently, so each
    parallel slot owns one profile directory; every job gets a fresh directory for its files.
    `soffice` is looked up at each conversion, so a server without LibreOffice starts fine.
    """

    def __init__(
        self,
        *,
        max_parallel: int | None = None,
        timeout: float = 120,
        soffice: str = "soffice",
        workdir: str | None = None,
    ) -> None:
        self.timeout = timeout
        self.soffice = soffice
        self._workdir = workdir
        self._root: str | None = None
        self._profiles: asyncio.Queue[str] = asyncio.Queue()
        for slot in range(max_parallel or os.cpu_count() or 1):
            self._profiles.put_nowait(f"profile-{slot}")

    async def to_pdf(self, data: bytes, kind: str) -> bytes:
        """The PDF LibreOffice makes of `data`, a document of `kind` (a key of `FILTERS`)."""
        if kind not in FILTERS:
            raise ValueError(f"{kind!r} is not an office document kind")
        program = shutil.which(self.soffice)
        if program is None:
            raise ConversionUnavailable()
        # The queue of free profiles is the semaphore: whoever holds a profile may run.
        profile = await self._profiles.get()
        try:
            return await self._convert(program, os.path.join(self._ensure_root(), profile), data, kind)
        finally:
            self._profiles.put_nowait(profile)

    async def close(self) -> None:
        """Removes every profile and job directory."""
        if self._root is not None:
            await asyncio.to_thread(shutil.rmtree, self._root, ignore_errors=True)
            self._root = None

    async def __aenter__(self) -> OfficeConverter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _ensure_root(self) -> str:
        if self._root is None:
            self._root = tempfile.mkdtemp(prefix="signsvc-office-", dir=self._workdir)
        return self._root

    async def _convert(self, program: str, profile: str, data: bytes, kind: str) -> bytes:
        job = Path(tempfile.mkdtemp(prefix="job-", dir=self._root))
        try:
            source = job / f"document.{kind}"
            await asyncio.to_thread(source.write_bytes, data)
            if not await self._run(program, profile, source, job):
                # A killed LibreOffice can leave a lock and a half-written profile behind.
                shutil.rmtree(profile, ignore_errors=True)
                raise ConversionFailed(
                    f"The {kind.upper()} document could not be converted to PDF within {self.timeout:g} seconds"
                )
            result = job / "document.pdf"
            if not result.is_file():
                log.info("LibreOffice could not read a %s document: %s", kind, _tail(job / "soffice.log"))
                raise ConversionFailed(
                    f"The {kind.upper()} document could not be converted to PDF: "
                    f"the file is damaged or is not a {kind.upper()} document"
                )
            return await asyncio.to_thread(result.read_bytes)
        finally:
            shutil.rmtree(job, ignore_errors=True)

    async def _run(self, program: str, profile: str, source: Path, job: Path) -> bool:
        """Runs one conversion; False when it ran out of time (it is then killed, with its children)."""
        command = [
            program,
            f"-env:UserInstallation={Path(profile).as_uri()}",
            "--headless",
            "--norestore",
            "--nolockcheck",
            f"--infilter={FILTERS[source.suffix[1:]]}",
            "--convert-to",
            "pdf",
            "--outdir",
            str(job),
            str(source),
        ]
        with open(job / "soffice.log", "wb") as output:
            try:
                # A session of its own makes soffice and the soffice.bin it starts one process group.
                process = await asyncio.create_subprocess_exec(
                    *command, stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output, start_new_session=True
                )
            except FileNotFoundError:
                raise ConversionUnavailable() from None
            try:
                await asyncio.wait_for(process.wait(), self.timeout)
                return True
            except TimeoutError:
                return False
            finally:
                if process.returncode is None:
                    _kill_group(process.pid)
                    await process.wait()


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _tail(path: Path) -> str:
    return path.read_bytes()[-500:].decode(errors="replace").strip()
