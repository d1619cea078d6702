"""The parser: each statement becomes one record that keeps its line number and text."""

from __future__ import annotations

import pytest

from asteroid_mining.rules import Orbit
from asteroid_mining.script import parser as p
from asteroid_mining.script.lexer import ScriptError, a_kind, split_words, tokenize


def one(text: str) -> p.Statement:
    statements = list(p.parse(text))
    assert len(statements) == 1
    return statements[0]


def test_tokenize_skips_blanks_and_comments_and_keeps_line_numbers() -> None:
    lines = list(tokenize("\n# comment\nasteroid A # trailing\n\t\n  link  A\tB\n"))
    assert [(line.number, line.words) for line in lines] == [(3, ("asteroid", "A")), (5, ("link", "A", "B"))]
    assert lines[1].text == "link A B"
    assert split_words("   ") == ()


def test_setup_statements() -> None:
    assert one("rules extended") == p.Rules(1, "rules extended", "extended")
    assert one("set uranium_fuse 3") == p.SetOption(1, "set uranium_fuse 3", "uranium_fuse", "3")
    assert one("seed 42") == p.Seed(1, "seed 42", 42)
    assert one("asteroid A") == p.NewAsteroid(1, "asteroid A", "A", 3, "hollow", "far", None)
    assert one("asteroid B orbit=4/1/2 core=ice mantle=0") == p.NewAsteroid(
        1, "asteroid B orbit=4/1/2 core=ice mantle=0", "B", 0, "ice", None, Orbit(4, 1, 2)
    )
    assert one("link A B C") == p.Link(1, "link A B C", "A", ("B", "C"))
    settler = one("settler s1 carry=ice:2,iron:1 at=A")
    assert isinstance(settler, p.NewSettler)
    assert (settler.id, settler.at, settler.cargo) == ("s1", "A", {"ice": 2, "iron": 1})
    assert one("robot r1 at=A ai=off") == p.NewMachine(1, "robot r1 at=A ai=off", "robot", "r1", "A", False)
    assert one("ufo u1 at=A") == p.NewMachine(1, "ufo u1 at=A", "ufo", "u1", "A", True)
    assert one("ai r1 on") == p.SetAi(1, "ai r1 on", "r1", True)
    assert one("gates g1=A g2=s1") == p.NewGates(1, "gates g1=A g2=s1", "g1", "A", "g2", "s1")


def test_play_statements() -> None:
    assert one("do s1 move B") == p.Do(1, "do s1 move B", "s1", "move", ("B",), False)
    assert one("reject do s1 build gates x y") == p.Do(
        1, "reject do s1 build gates x y", "s1", "build", ("gates", "x", "y"), True
    )
    assert one("do s1 build robot") == p.Do(1, "do s1 build robot", "s1", "build", ("robot",), False)
    assert one("end-round") == p.EndRound(1, "end-round")
    assert one("sun A near") == p.Sun(1, "sun A near", "A", True)
    assert one("storm A B") == p.Storm(1, "storm A B", ("A", "B"))
    assert one("forecast 3 A") == p.Forecast(1, "forecast 3 A", 3, ("A",))
    assert one("expect s1.carry.ice >= 2") == p.Expect(1, "expect s1.carry.ice >= 2", ("s1", "carry", "ice"), ">=", "2")
    assert one("show") == p.Show(1, "show", None)
    assert one("show A") == p.Show(1, "show A", "A")


def test_parse_error_names_the_line() -> None:
    with pytest.raises(ScriptError) as info:
        list(p.parse("asteroid A\n\nlink A\n"))
    assert info.value.line == 3
    assert info.value.message == "expected: link A B [C ...]"


def test_options_after_positional_words() -> None:
    with pytest.raises(ScriptError, match="'B' must come before the key=value options"):
        one("asteroid mantle=2 B")


def test_articles() -> None:
    assert [a_kind(k) for k in ("asteroid", "settler", "robot", "ufo", "gate")] == [
        "an asteroid",
        "a settler",
        "a robot",
        "a UFO",
        "a gate",
    ]
