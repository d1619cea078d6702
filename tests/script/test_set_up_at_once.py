"""A script's set-up is done at once where it can be (runs of `link A B` lines linked by the engine in one call,
plain `asteroid` lines without the parser): the outcome must be what parsing and executing each line gives,
line by line (`Interpreter.run_line`, the REPL's path) — the same output, errors at the same lines, the same
game."""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.script.interpreter import Interpreter
from asteroid_mining.script.lexer import numbered_words
from asteroid_mining.script.reporter import Reporter


def at_once(text: str) -> tuple[bool, str, dict[str, Any], set[str]]:
    out = io.StringIO()
    interpreter = Interpreter("t.scn", Reporter(out))
    ok = interpreter.run(text)
    return ok, out.getvalue(), interpreter.game.to_json(), interpreter.game.take_touched()


def line_by_line(text: str) -> tuple[bool, str, dict[str, Any], set[str]]:
    out = io.StringIO()
    interpreter = Interpreter("t.scn", Reporter(out))
    ok = all(interpreter.run_line(number, words) for number, words in numbered_words(text))
    return ok, out.getvalue(), interpreter.game.to_json(), interpreter.game.take_touched()


def agree(text: str) -> tuple[bool, str]:
    fast = at_once(text)
    assert fast == line_by_line(text)
    return fast[0], fast[1]


def test_a_belt_set_up_reads_as_line_by_line() -> None:
    lines = [f"asteroid a{n} mantle={n % 4} core={('ice', 'iron', 'hollow')[n % 3]} orbit={n % 5 + 3}/1/0"
             for n in range(40)]
    lines += [f"link a{n} a{(n * 7 + 3) % 40}" for n in range(40) if n != (n * 7 + 3) % 40]
    lines += ["settler s1 at=a0", "expect a1.mantle == 1"]
    ok, output = agree("\n".join(lines) + "\n")
    assert ok and "error" not in output


def test_an_error_in_a_run_of_links_is_named_at_its_line() -> None:
    start = "set uranium_fuse 1\nasteroid A\nasteroid B\nasteroid C\nasteroid X mantle=0 core=uranium sun=near\n"
    start += "settler s1 at=A\nlink A B\nlink B C\n"
    for bad, message in [
        ("link C s1", "s1 is a settler, not an asteroid"),
        ("link s1 C", "s1 is a settler, not an asteroid"),
        ("link C Q", "unknown id 'Q'"),
        ("link C C", "asteroid C cannot neighbour itself"),
        ("link C X", "asteroid X has exploded"),
        ("link X C", "asteroid X has exploded"),
    ]:
        for newline in ("\n", "\r\n"):
            ok, output = agree(f"{start}{bad}\nlink A C\n".replace("\n", newline))
            assert not ok
            assert output.strip().splitlines()[-1] == f"t.scn:9: error: {message}"


def test_an_asteroid_line_that_is_not_plain_is_read_by_the_parser() -> None:
    for line, message in [
        ("asteroid A mantle=3 mantle=2", "option 'mantle' given twice"),
        ("asteroid A orbit=6/2/0 sun=near", "give either sun= or orbit=, not both"),
        ("asteroid A mantle=-1", "mantle must be a whole number of at least 0, not '-1'"),
        ("asteroid game", "'game' is a reserved word and cannot be an id"),
        ("asteroid A B", "expected: asteroid ID [mantle=N] [core=CORE] [sun=near|far] [orbit=P/K/F]"),
    ]:
        ok, output = agree(f"asteroid B\n{line}\n")
        assert not ok
        assert output.strip() == f"t.scn:2: error: {message}"


def test_an_asteroid_that_explodes_at_once_tells_it_as_line_by_line() -> None:
    ok, output = agree("set uranium_fuse 1\nasteroid A mantle=0 core=uranium sun=near\nasteroid B\nlink A B\n")
    assert "explodes" in output or "exploded" in output
    assert not ok  # A is gone: it cannot be linked


IDS = st.sampled_from(["A", "B", "C", "D", "s1", "game", "9", "Z"])
OPTION = st.one_of(
    st.sampled_from(["mantle=0", "mantle=2", "mantle=x", "mantle=", "core=ice", "core=uranium", "core=gold",
                     "sun=near", "sun=far", "sun=up", "orbit=6/2/0", "orbit=2/2/1", "orbit=3/4/0", "size=2", "B"]),
)
LINE = st.one_of(
    st.builds(lambda i, opts: " ".join(["asteroid", i, *opts]), IDS, st.lists(OPTION, max_size=3)),
    st.builds(lambda a, b: f"link {a} {b}", IDS, IDS),
    st.builds(lambda a, b, c: f"link {a} {b} {c}", IDS, IDS, IDS),
    st.builds(lambda a, b: f"link {a}  {b}", IDS, IDS),
    st.builds(lambda a, b: f"link {a} {b} # note", IDS, IDS),
    st.builds(lambda a, b: f"link\t{a} {b}\r", IDS, IDS),
    st.builds(lambda a, b: f"link {a} {b}\r", IDS, IDS),
    st.builds(lambda a: f"settler s1 at={a}", IDS),
    st.builds(lambda a: f"storm {a}", IDS),
    st.sampled_from(["", "# comment", "set uranium_fuse 1", "end-round", "rules extended", "expect A.mantle == 3",
                     "asteroid D mantle=0 core=uranium sun=near", "asteroid C mantle=0 core=uranium sun=near"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, max_size=14), st.booleans())
def test_any_script_runs_as_line_by_line(lines: list[str], newline: bool) -> None:
    agree("\n".join(["set uranium_fuse 1", *lines]) + ("\n" if newline else ""))
