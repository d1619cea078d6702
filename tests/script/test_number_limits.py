"""Numbers a scenario file cannot hold, and files written by editors that start with a byte order mark."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from asteroid_mining.script.runner import run_files

HUGE = "9" * 5000


def run(tmp_path: Path, data: bytes) -> tuple[int, str]:
    path = tmp_path / "t.scn"
    path.write_bytes(data)
    out = io.StringIO()
    return run_files([str(path)], out=out), out.getvalue()


@pytest.mark.parametrize("text", [
    f"asteroid A mantle={HUGE}",
    f"set uranium_fuse {HUGE}",
    f"asteroid A\nsettler s1 at=A\nexpect s1.carry.ice == {HUGE}",
    "set uranium_fuse ٣",
    "set uranium_fuse NaN",
    "asteroid A mantle=Infinity",
    "asteroid A mantle=1e400",
])
def test_a_number_too_long_or_not_a_number_is_one_clear_error(tmp_path: Path, text: str) -> None:
    code, out = run(tmp_path, text.encode())
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert code == 2 and len(errors) == 1, out
    assert "internal error" not in out and "set_int_max_str_digits" not in out and len(errors[0]) < 300


def test_a_byte_order_mark_is_not_part_of_the_first_statement(tmp_path: Path) -> None:
    code, out = run(tmp_path, "asteroid A\nsettler s1 at=A\nexpect s1.at == A\n".encode("utf-8-sig"))
    assert code == 0, out
