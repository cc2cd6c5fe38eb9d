"""Shared fixtures: the repository's vectors, the `alibi` command for cross-checks, and the
rule of .ci/run that a skipped test is a failure when ALIBI_REQUIRE_PEERS=1."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "vectors"

# Each example runs real post-quantum operations: few examples, no deadline.
settings.register_profile(
    "alibi", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("alibi")


def json_lines(relative: str):
    """The objects of a JSON Lines file under vectors/, with hex strings as they are."""
    path = VECTORS / relative
    if not path.exists():
        pytest.skip(f"{path} not found")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _alibi_binary():
    if os.environ.get("ALIBI_BIN"):
        return Path(os.environ["ALIBI_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "alibi"
        if candidate.exists():
            return candidate
    found = shutil.which("alibi")
    return Path(found) if found else None


class Cli:
    """Runs `alibi` in a directory; `run` returns the completed process."""

    def __init__(self, binary: Path, cwd: Path):
        self.binary = binary
        self.cwd = cwd

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        p = subprocess.run(
            [str(self.binary), *args], cwd=self.cwd, capture_output=True, text=True
        )
        if check and p.returncode != 0:
            raise AssertionError(f"alibi {' '.join(args)} exited {p.returncode}: {p.stderr}")
        return p

    def path(self, name: str) -> Path:
        return self.cwd / name


@pytest.fixture
def cli(tmp_path):
    """The `alibi` binary (ALIBI_BIN, else target/release or target/debug, else PATH)."""
    binary = _alibi_binary()
    if binary is None or not binary.exists():
        pytest.skip("no alibi binary: build it with `cargo build --release -p alibi-cli`")
    return Cli(binary, tmp_path)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped and os.environ.get("ALIBI_REQUIRE_PEERS") == "1":
        terminalreporter.write_line(
            f"ALIBI_REQUIRE_PEERS=1: {len(skipped)} skipped test(s) count as failures",
            red=True,
        )


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and os.environ.get("ALIBI_REQUIRE_PEERS") == "1" and exitstatus == 0:
        session.exitstatus = 1
