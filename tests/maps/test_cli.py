"""`asteroid-mining map …` through typer's CliRunner: exit codes and messages, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from asteroid_mining.maps import load_belt
from asteroid_mining.maps.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_generate_writes_a_belt(tmp_path: Path) -> None:
    out = tmp_path / "belt.json"
    code, stdout, _ = run("generate", "--preset", "small", "--seed", "4", "-o", str(out))
    assert code == 0
    belt = load_belt(out)
    assert len(belt.asteroids) == 80
    assert f"{out}: 'Small belt 4': 80 asteroids" in stdout
    assert "suggested options: storm_interval=" in stdout


def test_generate_by_size_and_parameters(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    args = ["generate", "--size", "300", "--hubs", "2", "--density", "5", "--richness", "1.2", "-o", str(out)]
    code, _, _ = run(*args)
    assert code == 0
    belt = load_belt(out)
    assert len(belt.asteroids) == 300
    again = tmp_path / "c.json"
    assert run(*args[:-1], str(again))[0] == 0
    assert out.read_text(encoding="utf-8") == again.read_text(encoding="utf-8")


def test_generate_bad_input(tmp_path: Path) -> None:
    code, _, stderr = run("generate", "--size", "3", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "error: size must be between" in stderr
    code, _, stderr = run("generate", "-o", str(tmp_path / "x.txt"))
    assert code == 2 and "must end in .json" in stderr
    code, _, stderr = run("generate", "--preset", "giant", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "giant" in stderr
    code, _, stderr = run("generate", "-o", str(tmp_path / "no" / "dir" / "x.json"))
    assert code == 2 and "cannot write it" in stderr
    code, _, stderr = run("generate", "--seed", "-3", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "seed" in stderr
    assert not (tmp_path / "x.json").exists()


def test_check_a_good_file(tmp_path: Path) -> None:
    out = tmp_path / "belt.json"
    run("generate", "--preset", "tutorial", "-o", str(out))
    code, stdout, _ = run("check", str(out))
    assert code == 0
    assert stdout.startswith(f"{out}: ok: 'Tutorial belt 0': 30 asteroids")


def test_check_lists_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    doc = {
        "format": "asteroid-mining/belt",
        "version": 1,
        "start": "Q",
        "asteroids": [{"id": "A", "core": "gold"}, {"id": "B", "orbit": "3/4/0"}],
        "links": [["A", "A"], ["A", "Z"]],
    }
    bad.write_text(json.dumps(doc), encoding="utf-8")
    code, stdout, stderr = run("check", str(bad))
    assert code == 2
    assert stdout.splitlines() == [
        f"{bad}: start: 'Q' is not an asteroid of this belt",
        f"{bad}: asteroids[0].core: 'gold' is not a material (expected one of ice, iron, carbon, uranium, hollow)",
        f"{bad}: asteroids[1].orbit: orbit near-window must be between 0 and 3, not 4",
        f"{bad}: links[0]: links 'A' to itself (no asteroid neighbours itself, R2)",
        f"{bad}: links[1][1]: 'Z' is not an asteroid of this belt",
    ]
    assert "not a valid belt (5 problems)" in stderr


def test_check_malformed_and_missing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "asteroid-mining/belt",\n "version": 1,,}', encoding="utf-8")
    code, stdout, _ = run("check", str(broken), str(tmp_path / "missing.json"))
    assert code == 2
    assert stdout.splitlines() == [
        f"{broken}: 2:15: malformed JSON: Expecting property name enclosed in double quotes",
        f"{tmp_path / 'missing.json'}: no such file",
    ]


def test_check_shipped_names_and_warnings() -> None:
    code, stdout, _ = run("check", "puzzle-gates", "tutorial")
    assert code == 0
    assert "puzzle-gates: ok: 'Puzzle: Burning Bridge'" in stdout
    assert "puzzle-gates: warning: the belt falls apart into 2 unconnected parts" in stdout


def test_show_writes_pictures(tmp_path: Path) -> None:
    for name in ("t.png", "t.svg"):
        code, stdout, _ = run("show", "tutorial", "-o", str(tmp_path / name), "--no-cores")
        assert code == 0, stdout
        assert (tmp_path / name).stat().st_size > 10_000


def test_show_bad_input(tmp_path: Path) -> None:
    code, _, stderr = run("show", "tutorial", "-o", str(tmp_path / "t.gif"))
    assert code == 2 and "must end in .png or .svg" in stderr
    code, stdout, _ = run("show", str(tmp_path / "none.json"), "-o", str(tmp_path / "t.png"))
    assert code == 2 and "no such file" in stdout
    assert not (tmp_path / "t.png").exists()


def test_list() -> None:
    code, stdout, _ = run("list")
    assert code == 0
    assert [line.split()[0] for line in stdout.splitlines()] == [
        "puzzle-gates", "puzzle-storm", "tutorial", "small", "standard", "large", "huge"]


def test_help_names_the_commands() -> None:
    code, stdout, _ = run("--help")
    assert code == 0
    for command in ("generate", "check", "show", "list"):
        assert command in stdout


def test_generate_at_a_difficulty(tmp_path: Path) -> None:
    from asteroid_mining.maps.resolve import resolve

    out = tmp_path / "hard.json"
    code, stdout, _ = run("generate", "--preset", "standard", "--seed", "3", "--difficulty", "hard", "-o", str(out))
    assert code == 0
    expected = resolve("standard", 3, "hard")
    assert load_belt(out) == expected.belt
    interval, warning = expected.options["storm_interval"], expected.options["storm_warning"]
    assert f"suggested options: storm_interval={interval}, storm_warning={warning} " in stdout
    code, _, stderr = run("generate", "--difficulty", "nightmare", "-o", str(out))
    assert code == 2
    assert "unknown difficulty 'nightmare': use easy, normal, hard, brutal" in stderr


def test_a_preset_name_is_a_belt_too() -> None:
    code, stdout, _ = run("check", "small")
    assert code == 0 and stdout.startswith("small: ok: 'Small belt 0': 80 asteroids")
    code, _, stderr = run("check", "nowhere")
    assert code == 2 and "nowhere: unknown belt 'nowhere'" in stderr
