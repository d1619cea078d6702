"""The interactive prompt: statements one by one on one game, errors do not end the session."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from asteroid_mining.script import repl


def test_session_runs_statements_and_goes_on_after_errors() -> None:
    lines = io.StringIO(
        "asteroid A mantle=1\nsettler s1 at=A\nfrobnicate\ndo s1 drill\nexpect A.mantle == 0\n"
        "do s1 drill\nshow A\nexpect A.mantle == 5\n"
    )
    out = io.StringIO()
    assert repl.session(lines, out=out) == 1
    printed = out.getvalue().splitlines()
    assert "<prompt>:3: error: unknown statement 'frobnicate'" in printed
    assert "s1 drilled A (mantle 1 -> 0)" in printed
    assert "<prompt>:6: error: A is already drilled through" in printed
    assert any(line.startswith("asteroid A: mantle 0") for line in printed)
    assert "<prompt>:8: check failed: expect A.mantle == 5 (was 0)" in printed
    assert printed[-1] == "1 passed, 1 failed"


def test_help_reset_and_quit() -> None:
    lines = io.StringIO("asteroid A\nhelp\nreset\nasteroid A\nexpect A.exists == true\nquit\nasteroid A\n")
    out = io.StringIO()
    assert repl.session(lines, out=out) == 0
    text = out.getvalue()
    assert "do ACTOR ACTION [ARGS]" in text
    assert "a new, empty game" in text
    assert "already taken" not in text
    assert text.splitlines()[-1] == "1 passed, 0 failed"


def test_main_reads_the_terminal_and_keeps_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "history"
    monkeypatch.setattr(repl, "HISTORY", str(history))
    answers = iter(["asteroid A", "", "expect A.mantle == 3"])

    def fake_input(prompt: str) -> str:
        assert prompt == repl.PROMPT
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    assert repl.main() == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"
    assert history.exists()
