"""The README's two commands install into the project's own environment, never into the system
Python (stock Debian 12 / Ubuntu 24.04 refuse that: PEP 668)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def planned(venv: Path, *targets: str) -> list[str]:
    """The commands `make TARGETS` would run from scratch (`make -n -B`)."""
    out = subprocess.run(["make", "-n", "-B", f"VENV={venv}", *targets], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def test_demo_and_test_install_only_into_the_project_environment(tmp_path):
    venv = tmp_path / "venv"
    commands = planned(venv, "demo", "test")
    assert any(line.endswith(f"-m venv {venv}") for line in commands)
    installs = [line for line in commands if "pip install" in line]
    assert installs and all(line.startswith(f"{venv}/bin/python -m pip install") for line in installs), installs
    assert not any(flag in line for line in commands for flag in ("--break-system-packages", "--user", "sudo "))
    assert f"{venv}/bin/videorag demo" in commands and f"{venv}/bin/python -m pytest -q" in commands


@pytest.mark.slow
def test_the_environment_target_makes_a_virtual_environment(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["make", f"VENV={venv}", "venv"], cwd=REPO, check=True, capture_output=True, timeout=600)
    prefix = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix != sys.base_prefix)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert prefix == "True"


def test_make_test_checks_lint_format_and_types_before_the_tests(tmp_path):
    """CI runs `make test`: the code's own checks come first, on videorag/, in the project's environment."""
    venv = tmp_path / "venv"
    commands = planned(venv, "test")
    checks = [f"{venv}/bin/python -m ruff check videorag", f"{venv}/bin/python -m ruff format --check videorag",
              f"{venv}/bin/python -m mypy", f"{venv}/bin/python -m pytest -q"]
    assert all(c in commands for c in checks), commands
    assert [commands.index(c) for c in checks] == sorted(commands.index(c) for c in checks)


def test_make_check_builds_the_docs_site_strictly(tmp_path):
    """The docs site's reference pages are made from the code: `make check` builds it with --strict (a
    broken link or an unknown marker fails), after the code's own checks; `install-test` installs mkdocs."""
    venv = tmp_path / "venv"
    commands = planned(venv, "test")
    build = next((c for c in commands if c.startswith(f"{venv}/bin/python -m mkdocs build --strict")), None)
    assert build is not None, commands
    assert commands.index(f"{venv}/bin/python -m mypy") < commands.index(build) < commands.index(
        f"{venv}/bin/python -m pytest -q")
    installs = [c for c in planned(venv, "install-test") if "pip install" in c and "-e '.[" in c]
    assert installs and all("docs" in c.split("[", 1)[1].split("]")[0].split(",") for c in installs), installs
