"""dsh.ui.host_import: the view imported without asyncio's ssl and prompt_toolkit's package __init__."""

from __future__ import annotations

import subprocess
import sys


def run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_view_is_imported_without_ssl_or_the_shortcuts_and_asyncio_still_serves_a_unix_socket() -> None:
    code = """
import os, sys, tempfile
from dsh.ui import host_import
host_import.import_view()
import asyncio
print('dsh.ui.remote' in sys.modules, 'ssl' in sys.modules, 'prompt_toolkit.shortcuts' in sys.modules,
      host_import.bare_packages())
async def main():
    path = os.path.join(tempfile.mkdtemp(), 's')
    async def echo(reader, writer):
        writer.write(await reader.readline()); await writer.drain(); writer.close()
    server = await asyncio.start_unix_server(echo, path)
    reader, writer = await asyncio.open_unix_connection(path)
    writer.write(b'hello\\n'); await writer.drain()
    print((await reader.readline()).decode().strip())
    writer.close(); server.close(); await server.wait_closed()
asyncio.run(main())
import ssl  # left out of asyncio only: anything else imports it as usual
print(ssl.__name__)
"""
    assert run(code).splitlines() == ["True False False ['prompt_toolkit']", "hello", "ssl"]


def test_complete_runs_prompt_toolkit_s_init_in_the_package_module_once() -> None:
    code = """
import sys
from dsh.ui import host_import
host_import.import_view()
package = sys.modules['prompt_toolkit']
host_import.complete()
host_import.complete()
import prompt_toolkit
from prompt_toolkit import Application, PromptSession
print(prompt_toolkit is package, PromptSession.__module__, Application.__module__, host_import.bare_packages())
print(prompt_toolkit.__version__ == __import__('importlib.metadata').metadata.version('prompt_toolkit'))
"""
    assert run(code).splitlines() == [
        "True prompt_toolkit.shortcuts.prompt prompt_toolkit.application.application []",
        "True",
    ]


def test_nothing_is_left_out_when_asyncio_and_prompt_toolkit_are_imported_already() -> None:
    # A host forked by the spawner, or a view imported the usual way first: import_view changes nothing.
    code = """
import sys, ssl, asyncio, prompt_toolkit
from dsh.ui import host_import
host_import.import_view()
print(host_import.bare_packages(), 'prompt_toolkit.shortcuts' in sys.modules, asyncio.base_events.ssl is ssl)
"""
    assert run(code) == "[] True True"
