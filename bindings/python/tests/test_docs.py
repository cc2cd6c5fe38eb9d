"""docs/python.md's commands run as written (issue 66: a doc command is a test). Its `python -c`
lines run here with this interpreter, which has the package installed (the `pip install` line
of the same block is how .ci/run installed it)."""

import re
import shlex
import subprocess
import sys

from conftest import REPO

DOC = REPO / "docs" / "python.md"


def doc_commands(prefix):
    """Every line of the document's sh blocks that starts with `prefix`, comments removed."""
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith(prefix)]


def test_every_python_line_of_the_install_block_runs():
    commands = doc_commands("python -c ")
    assert commands, "docs/python.md has a `python -c` line"
    for command in commands:
        argv = shlex.split(command, comments=True)
        done = subprocess.run([sys.executable] + argv[1:], capture_output=True, text=True)
        assert done.returncode == 0, f"{command}: {done.stderr}"


def test_the_install_line_names_the_package_directory():
    (line,) = doc_commands("pip install ")
    path = shlex.split(line, comments=True)[2]
    assert (REPO / path / "pyproject.toml").exists(), line
