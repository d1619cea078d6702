"""The scenario language itself: errors, check output, summary, --quiet, exit codes, files and stdin."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from asteroid_mining.rules import Game
from asteroid_mining.script.runner import run_files


def run_text(tmp_path: Path, text: str, quiet: bool = True, name: str = "t.scn") -> tuple[int, list[str], str]:
    """Run `text` as one file; the exit code, the printed lines and the file's name as printed."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    code = run_files([str(path)], quiet=quiet, out=out)
    return code, out.getvalue().splitlines(), str(path)


EXPLODED = "asteroid A mantle=0 core=uranium sun=near\nasteroid B\n"

ERRORS = [
    # syntax
    ("asteroid A\nfrobnicate A\n", 2, "unknown statement 'frobnicate'"),
    (
        "asteroid A\nsettler s1 at=A\ndo s1 fly\n",
        3,
        "unknown action 'fly' (known: move, drill, mine, deposit, build, place, wait)",
    ),
    ("asteroid A\nsettler s1 at=A\ndo s1 move\n", 3, "move expects: move X"),
    ("asteroid A\nsettler s1 at=A\ndo s1 drill now\n", 3, "drill expects: drill"),
    ("asteroid A\nsettler s1 at=A\ndo s1 build castle\n", 3, "expected: build robot [NEWID] or build gates [G1 G2]"),
    ("asteroid A\nsettler s1 at=A\ndo s1 build gates g1\n", 3, "expected: build gates [G1 G2]"),
    ("asteroid A\nsettler s1 at=A\ndo s1 build robot r1 r2\n", 3, "expected: build robot [NEWID]"),
    ("asteroid A\nexpect A.mantle = 3\n", 2, "unknown operator '=' (known: == != < <= > >= in)"),
    ("asteroid A\nexpect A.mantle == 3 4\n", 2, "expected: expect PATH OP VALUE"),
    ("asteroid A\nexpect mantle == 3\n", 2, "a path is ID.FIELD or game.FIELD, not 'mantle'"),
    ("asteroid A\nlink A\n", 2, "expected: link A B [C ...]"),
    ("reject drill\n", 1, "expected: reject do ACTOR ACTION [ARGS]"),
    ("asteroid A # ok\nend-round now\n", 2, "expected: end-round"),
    ("asteroid A\nsettler s1\n", 2, "a settler needs at=ASTEROID"),
    ("asteroid A B\n", 1, "expected: asteroid ID [mantle=N] [core=CORE] [sun=near|far] [orbit=P/K/F]"),
    # unknown ids
    ("settler s1 at=Z\n", 1, "unknown id 'Z'"),
    ("do s1 wait\n", 1, "unknown id 's1'"),
    ("asteroid A\nsettler s1 at=A\ndo s1 move Nowhere\n", 3, "unknown id 'Nowhere'"),
    ("asteroid A\nsettler s1 at=A\ndo s1 place g9\n", 3, "unknown id 'g9'"),
    ("asteroid A\nlink A Q\n", 2, "unknown id 'Q'"),
    ("asteroid A\nshow Q\n", 2, "unknown id 'Q'"),
    ("expect Q.exists == true\n", 1, "unknown id 'Q'"),
    # unknown option keys
    ("asteroid A color=red\n", 1, "unknown option 'color' for asteroid (known: mantle, core, sun, orbit)"),
    ("asteroid A\nsettler s1 at=A ai=on\n", 2, "unknown option 'ai' for settler (known: at, carry)"),
    (
        "set colour 3\n",
        1,
        "unknown option 'colour' (known: uranium_fuse, ufos, haywire_gates, storm_warning, storm_interval, turns)",
    ),
    ("asteroid A mantle=1 mantle=2\n", 1, "option 'mantle' given twice"),
    # bad values
    ("asteroid A mantle=x\n", 1, "mantle must be a whole number of at least 0, not 'x'"),
    ("asteroid A mantle=-1\n", 1, "mantle must be a whole number of at least 0, not '-1'"),
    ("set uranium_fuse 0\n", 1, "uranium_fuse must be a whole number of at least 1, not '0'"),
    ("set haywire_gates yes\n", 1, "haywire_gates must be on or off, not 'yes'"),
    ("set turns lazy\n", 1, "turns must be strict or free, not 'lazy'"),
    ("asteroid A core=gold\n", 1, "core must be one of ice, iron, carbon, uranium, hollow, not 'gold'"),
    ("asteroid A sun=up\n", 1, "sun must be near or far, not 'up'"),
    ("asteroid A orbit=3/4/0\n", 1, "orbit near-window must be between 0 and 3, not 4"),
    ("asteroid A orbit=3\n", 1, "orbit must be P/K/F with whole numbers, not '3'"),
    ("asteroid A\nrobot r1 at=A ai=maybe\n", 2, "ai must be on or off, not 'maybe'"),
    ("asteroid A\nsun A close\n", 2, "sun must be near or far, not 'close'"),
    ("seed -1\n", 1, "the seed must be a whole number of at least 0, not '-1'"),
    ("rules modern\n", 1, "unknown rules preset 'modern' (expected classic or extended)"),
    (
        "asteroid A\nsettler s1 at=A carry=iron\n",
        2,
        "carry must be KIND:N,… with KIND one of ice, iron, carbon, uranium, not 'iron'",
    ),
    ("asteroid A\nsettler s1 at=A carry=iron:1,iron:2\n", 2, "carry names iron twice"),
    (
        "asteroid A\nsettler s1 at=A\ndo s1 deposit gold\n",
        3,
        "deposit needs a material kind (ice, iron, carbon, uranium), not 'gold'",
    ),
    ("asteroid A\nforecast 0 A\n", 2, "the round must be a whole number of at least 1, not '0'"),
    ("asteroid A\nexpect A.mantle == three\n", 2, "expected a number, not 'three'"),
    ("asteroid A\nexpect A.shelter == yes\n", 2, "expected true or false, not 'yes'"),
    ("asteroid A\nexpect A.core == gold\n", 2, "expected one of ice, iron, carbon, uranium, hollow, not 'gold'"),
    (
        "asteroid A\nexpect A.sun == far,near\n",
        2,
        "A.sun holds one value, not a list: 'far,near' (use 'in' for a choice)",
    ),
    (
        "asteroid A\nexpect A.colour == red\n",
        2,
        "unknown path A.colour for an asteroid (known: A.exists, A.mantle, "
        "A.exposures, A.core, A.sun, A.shelter, A.surveyed, A.neighbours, A.gates, A.settlers, A.robots, A.ufos)",
    ),
    (
        "asteroid A\nexpect game.score == 3\n",
        2,
        "unknown path game.score (known: game.status, game.round, game.turn, game.winnable)",
    ),
    # taken ids and reserved words
    ("asteroid A\nasteroid A\n", 2, "id 'A' is already taken (by an asteroid)"),
    ("asteroid A\nsettler A at=A\n", 2, "id 'A' is already taken (by an asteroid)"),
    ("asteroid A\nsettler s1 at=A\nufo s1 at=A\n", 3, "id 's1' is already taken (by a settler)"),
    ("asteroid A\nufo u1 at=A\ngates u1=A g2=A\n", 3, "id 'u1' is already taken (by a UFO)"),
    (
        "asteroid A\nsettler s1 at=A carry=iron:1,carbon:1,uranium:1\ndo s1 build robot A\n",
        3,
        "id 'A' is already taken (by an asteroid)",
    ),
    (
        "asteroid A\nsettler s1 at=A carry=iron:2,ice:1,uranium:1\ndo s1 build gates g1 s1\n",
        3,
        "id 's1' is already taken (by a settler)",
    ),
    ("asteroid A\ngates g1=A g1=A\n", 2, "the two gates of a pair need two different ids"),
    ("asteroid none\n", 1, "'none' is a reserved word and cannot be an id"),
    ("asteroid game\n", 1, "'game' is a reserved word and cannot be an id"),
    ("asteroid true\n", 1, "'true' is a reserved word and cannot be an id"),
    ("asteroid A\nsettler false at=A\n", 2, "'false' is a reserved word and cannot be an id"),
    ("asteroid 1x\n", 1, "'1x' is not a valid id (letters, digits, '_' and '-', starting with a letter)"),
    # exploded asteroids named where a living one is needed
    (EXPLODED + "link A B\n", 3, "asteroid A has exploded"),
    (EXPLODED + "link B A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "sun A far\n", 3, "asteroid A has exploded"),
    (EXPLODED + "storm B A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "forecast 1 A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "settler s1 at=A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "robot r1 at=A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "ufo u1 at=A\n", 3, "asteroid A has exploded"),
    (EXPLODED + "gates g1=A g2=B\n", 3, "asteroid A has exploded"),
    # impossible set-ups
    ("asteroid A sun=near orbit=2/1/0\n", 1, "give either sun= or orbit=, not both"),
    ("asteroid A orbit=2/1/0 sun=far\n", 1, "give either sun= or orbit=, not both"),
    ("asteroid A\nsettler s1 at=A carry=iron:6,ice:5\n", 2, "a settler carries at most 10 units, not 11"),
    ("asteroid A\nrules extended\n", 2, "rules must come before the first asteroid, settler, robot, UFO or gate"),
    ("asteroid A\nlink A A\n", 2, "asteroid A cannot neighbour itself"),
    ("asteroid A\nasteroid B\ngates g1=A g2=B\nlink A g1\n", 4, "g1 is a gate, not an asteroid"),
    ("asteroid A\nasteroid B\ngates g1=A g2=B\nlink g2 B\n", 4, "g2 is a gate, not an asteroid"),
    ("asteroid A\nsettler s1 at=A\nlink s1 A\n", 3, "s1 is a settler, not an asteroid"),
    ("asteroid A\nai A on\n", 2, "A is an asteroid: only robots and UFOs have an AI"),
    ("asteroid A\nsettler s1 at=A\nsettler s2 at=s1\n", 3, "s1 is a settler, not an asteroid"),
    (
        "asteroid A\nrobot r1 at=A\ngates g1=A g2=r1\n",
        3,
        "a gate orbits an asteroid or is carried by a settler, and r1 is a robot",
    ),
    (
        "asteroid A\nasteroid B\nsettler s1 at=A\ngates g1=s1 g2=s1\ngates g3=s1 g4=B\n",
        5,
        "s1 cannot carry more than 2 gates",
    ),
    ("asteroid A\nend-round\nforecast 1 A\n", 3, "round 1 is over: a forecast is for round 2 or later"),
    (
        "asteroid A\nsettler s1 at=A carry=ice:3,iron:3,carbon:3\nsettler s2 at=A carry=uranium:3\nasteroid B\n",
        4,
        "the game has ended (won): no new things can be added",
    ),
    # strict turns
    (
        "asteroid A\nsettler s1 at=A\nset turns strict\nend-round\n",
        4,
        "end-round is not allowed with strict turns: the round ends by itself",
    ),
    (
        "set turns strict\nasteroid A\nsettler s1 at=A\ndo s1 wait\nend-round\n",
        5,
        "end-round is not allowed with strict turns: the round ends by itself",
    ),
    ("set turns strict\nasteroid A\nsettler s1 at=A\nsettler s2 at=A\ndo s2 wait\n", 5, "it is Settler 1's turn"),
    # refused do without reject: worded from the translation files (texts.refusal_text)
    ("asteroid A\nsettler s1 at=A\ndo s1 mine\n", 3, "A still has 3 layers of mantle"),
    ("asteroid A\nrobot r1 at=A\ndo r1 mine\n", 3, "a robot cannot do that"),
    ("asteroid A\nasteroid B\nsettler s1 at=A\ndo s1 move B\n", 4, "B is not a neighbour of A"),
    ("asteroid A\nsettler s1 at=A\ndo A drill\n", 3, "A cannot act"),
    # expect on a destroyed thing's path
    (
        EXPLODED + "expect A.exists == false\nexpect A.mantle == 0\n",
        4,
        "cannot ask A.mantle: asteroid A has exploded (only A.exists can be asked)",
    ),
    (
        "asteroid A\nsettler s1 at=A\nstorm A\nexpect s1.at == none\nexpect s1.carry.total == 0\n",
        5,
        "cannot ask s1.carry.total: settler s1 has died (only s1.alive and s1.at can be asked)",
    ),
    (
        "asteroid A\nrobot r1 at=A\nstorm A\nexpect r1.alive == false\nexpect r1.at == none\nexpect A.robots == r1\n",
        6,
        None,
    ),
    (
        "asteroid A\nasteroid B mantle=0 core=uranium\ngates g1=A g2=B\nsun B near\nexpect g1.at == none\n"
        "expect g1.partner == g2\n",
        6,
        "cannot ask g1.partner: gate g1 has been destroyed (only g1.exists and g1.at can be asked)",
    ),
    # in on a set path, < on non-numbers, undeclared ids in a value
    (
        "asteroid A\nasteroid B\nlink A B\nexpect A.neighbours in B\n",
        4,
        "'in' cannot be used on A.neighbours, which is a set of ids",
    ),
    ("asteroid A\nexpect A.core < iron\n", 2, "'<' compares numbers only, and A.core is not a number"),
    ("asteroid A\nexpect A.shelter <= true\n", 2, "'<=' compares numbers only, and A.shelter is not a number"),
    ("asteroid A\nexpect game.status >= won\n", 2, "'>=' compares numbers only, and game.status is not a number"),
    (
        "asteroid A\nasteroid B\nlink A B\nexpect A.neighbours > B\n",
        4,
        "'>' compares numbers only, and A.neighbours is not a number",
    ),
    ("asteroid A\nexpect A.neighbours == Q\n", 2, "unknown id 'Q'"),
    ("asteroid A\nasteroid B\nlink A B\nexpect A.neighbours == B,Q\n", 4, "unknown id 'Q'"),
    ("asteroid A\nsettler s1 at=A\nexpect s1.at in A,Q\n", 3, "unknown id 'Q'"),
    ("asteroid A\nexpect game.turn == nobody\n", 2, "unknown id 'nobody'"),
]


@pytest.mark.parametrize(("text", "line", "message"), ERRORS, ids=[f"{i:02d}" for i in range(len(ERRORS))])
def test_error_is_one_line_and_stops_the_file(tmp_path: Path, text: str, line: int, message: str | None) -> None:
    code, lines, name = run_text(tmp_path, text + "expect game.round == 99\n")
    if message is None:  # a few cases that must NOT be errors: the file goes on to the failing last check
        assert code == 1, lines
        return
    assert code == 2, lines
    errors = [x for x in lines if ": error: " in x]
    assert errors == [f"{name}:{line}: error: {message}"], lines
    assert "check failed" not in "\n".join(lines)  # the file stopped: the last check never ran
    assert lines[-1].endswith(" passed, 0 failed")


def test_error_is_printed_when_not_quiet_too(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A\nfrobnicate\n", quiet=False)
    assert code == 2
    assert lines == [f"{name}:2: error: unknown statement 'frobnicate'", "0 passed, 0 failed"]


def test_failed_check_format_and_file_goes_on(tmp_path: Path) -> None:
    text = (
        "asteroid A\nasteroid B\nlink A B\nsettler s1 at=A\nstorm A\n"
        "expect s1.alive == true\nexpect B.neighbours == none\nexpect game.round >= 1\n"
        "expect s1.at in A,B\nexpect A.mantle != 3\n"
    )
    code, lines, name = run_text(tmp_path, text)
    assert code == 1
    assert lines == [
        f"{name}:6: check failed: expect s1.alive == true (was false)",
        f"{name}:7: check failed: expect B.neighbours == none (was A)",
        f"{name}:9: check failed: expect s1.at in A,B (was none)",
        f"{name}:10: check failed: expect A.mantle != 3 (was 3)",
        "1 passed, 4 failed",
    ]


def test_check_text_is_normalised_and_comments_dropped(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A\n  expect\tA.mantle   ==  2   # two?\n")
    assert code == 1
    assert lines[0] == f"{name}:2: check failed: expect A.mantle == 2 (was 3)"


def test_set_values_compare_regardless_of_order(tmp_path: Path) -> None:
    text = (
        "asteroid A\nasteroid B\nasteroid C\nlink A B C\nsettler s1 at=A\nsettler s2 at=A\n"
        "expect A.neighbours == C,B\nexpect A.neighbours == B,C\nexpect A.settlers == s2,s1\n"
        "expect B.settlers == none\nexpect A.neighbours != B\nexpect A.neighbours == B\n"
    )
    code, lines, name = run_text(tmp_path, text)
    assert code == 1
    assert lines == [f"{name}:12: check failed: expect A.neighbours == B (was B,C)", "5 passed, 1 failed"]


def test_every_path_can_be_read(tmp_path: Path) -> None:
    text = """\
asteroid A mantle=0 core=iron
asteroid B orbit=2/1/0
link A B
settler s1 at=A carry=ice:2
robot r1 at=A ai=off
ufo u1 at=B ai=off
gates g1=A g2=s1
expect A.exists == true
expect A.mantle == 0
expect A.exposures == 0
expect A.core == iron
expect A.sun == far
expect B.sun == near
expect A.shelter == false
expect A.surveyed == true
expect B.surveyed == false
expect A.neighbours == B
expect A.gates == g1
expect A.settlers == s1
expect A.robots == r1
expect B.ufos == u1
expect s1.alive == true
expect s1.at == A
expect s1.carry.ice == 2
expect s1.carry.iron == 0
expect s1.carry.carbon == 0
expect s1.carry.uranium == 0
expect s1.carry.total == 2
expect s1.gates == g2
expect r1.alive == true
expect r1.at == A
expect u1.alive == true
expect u1.at == B
expect u1.carry.total == 0
expect u1.carry.iron == 0
expect g1.exists == true
expect g1.active == false
expect g1.haywire == false
expect g1.at == A
expect g2.at == none
expect g1.carrier == none
expect g2.carrier == s1
expect g1.partner == g2
expect game.status == running
expect game.round == 1
expect game.turn == none
expect game.winnable == false
expect game.round < 2
expect game.round <= 1
expect game.round > 0
expect game.round >= 1
expect game.round in 1,2
expect game.status in running,won
expect A.core in iron,carbon
expect s1.carry.ice in 1,2,3
"""
    code, lines, _ = run_text(tmp_path, text)
    assert code == 0, lines
    assert lines == ["48 passed, 0 failed"]


def test_reject_refused_passes_and_changes_nothing(tmp_path: Path) -> None:
    text = "asteroid A\nsettler s1 at=A\nreject do s1 mine\nexpect A.mantle == 3\n"
    code, lines, _ = run_text(tmp_path, text, quiet=False)
    assert code == 0
    assert lines == ["refused as expected: A still has 3 layers of mantle", "2 passed, 0 failed"]


def test_reject_accepted_fails_and_stays_applied(tmp_path: Path) -> None:
    text = "asteroid A\nsettler s1 at=A\nreject do s1 drill\nexpect A.mantle == 2\n"
    code, lines, name = run_text(tmp_path, text)
    assert code == 1
    assert lines == [f"{name}:3: check failed: reject do s1 drill (was accepted)", "1 passed, 1 failed"]


def test_reject_accepted_prints_its_events_when_not_quiet(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A\nsettler s1 at=A\nreject   do s1 drill\n", quiet=False)
    assert code == 1
    assert lines == [
        "s1 drilled A (mantle 3 -> 2)",
        f"{name}:3: check failed: reject do s1 drill (was accepted)",
        "0 passed, 1 failed",
    ]


def test_reject_that_changes_the_state_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from asteroid_mining.rules import Refusal, Refused

    def sloppy_apply(self: Game, action: object) -> list[object]:
        self.state.round += 1
        raise Refused(Refusal("mantle_left", {"actor": "s1", "asteroid": "A", "mantle": 3}))

    monkeypatch.setattr(Game, "apply", sloppy_apply)
    code, lines, name = run_text(tmp_path, "asteroid A\nsettler s1 at=A\nreject do s1 mine\n")
    assert code == 1
    assert lines == [
        f"{name}:3: check failed: reject do s1 mine (refused, but the state changed)",
        "0 passed, 1 failed",
    ]


def test_reject_of_an_unknown_actor_is_an_error(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A\nreject do s9 wait\n")
    assert code == 2
    assert lines == [f"{name}:2: error: unknown id 's9'", "0 passed, 0 failed"]


def test_any_action_name_for_any_actor_is_a_refusal_not_a_syntax_error(tmp_path: Path) -> None:
    text = """\
asteroid A mantle=0 core=iron
asteroid B
settler s1 at=A
robot r1 at=A ai=off
ufo u1 at=A ai=off
gates g1=s1 g2=B
reject do r1 mine
reject do r1 deposit iron
reject do r1 build robot
reject do r1 build gates x1 x2
reject do r1 place g1
reject do u1 drill
reject do u1 deposit iron
reject do u1 build robot
reject do u1 place g1
reject do A drill
reject do g1 wait
"""
    code, lines, _ = run_text(tmp_path, text)
    assert (code, lines) == (0, ["11 passed, 0 failed"])


def test_internal_errors_become_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Game) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(Game, "end_round", broken)
    code, lines, name = run_text(tmp_path, "asteroid A\nend-round\nexpect A.exists == true\n")
    assert code == 2
    assert lines == [f"{name}:2: error: internal error: RuntimeError: boom", "0 passed, 0 failed"]


def test_unreadable_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.scn")
    out = io.StringIO()
    assert run_files([missing], out=out) == 2
    assert out.getvalue().splitlines() == [
        f"{missing}: error: cannot read the file: No such file or directory",
        "0 passed, 0 failed",
    ]


def test_directory_is_unreadable(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_files([str(tmp_path)], out=out) == 2
    first = out.getvalue().splitlines()[0]
    assert first.startswith(f"{tmp_path}: error: cannot read the file: ")


def test_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bin.scn"
    path.write_bytes(b"asteroid A\n\xff\xfe\n")
    out = io.StringIO()
    assert run_files([str(path)], out=out) == 2
    assert out.getvalue().splitlines()[0].startswith(f"{path}: error: cannot read the file: it is not UTF-8 text")


def test_summary_is_last_and_counts_over_files(tmp_path: Path) -> None:
    good = tmp_path / "good.scn"
    bad = tmp_path / "bad.scn"
    good.write_text("asteroid A\nexpect A.mantle == 3\nreject do A drill\n", encoding="utf-8")
    bad.write_text("asteroid A\nexpect A.mantle == 4\n", encoding="utf-8")
    out = io.StringIO()
    assert run_files([str(good), str(bad), str(good)], quiet=False, out=out) == 1
    lines = out.getvalue().splitlines()
    assert lines[-1] == "4 passed, 1 failed"
    assert f"{bad}:2: check failed: expect A.mantle == 4 (was 3)" in lines


def test_exit_code_two_wins_over_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.scn"
    broken = tmp_path / "broken.scn"
    bad.write_text("asteroid A\nexpect A.mantle == 4\n", encoding="utf-8")
    broken.write_text("asteroid A\nexpect A.mantle == 3\nbogus\nexpect A.mantle == 9\n", encoding="utf-8")
    for order in ([bad, broken], [broken, bad]):
        out = io.StringIO()
        assert run_files([str(p) for p in order], quiet=True, out=out) == 2
        lines = out.getvalue().splitlines()
        assert lines[-1] == "1 passed, 1 failed"
        assert f"{broken}:3: error: unknown statement 'bogus'" in lines


def test_exit_code_zero_with_no_checks(tmp_path: Path) -> None:
    code, lines, _ = run_text(tmp_path, "# nothing but a comment\n\n   \n")
    assert (code, lines) == (0, ["0 passed, 0 failed"])


def test_files_are_independent_games(tmp_path: Path) -> None:
    one = tmp_path / "one.scn"
    two = tmp_path / "two.scn"
    one.write_text("set uranium_fuse 3\nseed 4\nasteroid A\nsettler s1 at=A\nend-round\n", encoding="utf-8")
    two.write_text(
        "asteroid A mantle=0 core=uranium sun=near\nexpect A.exists == false\nexpect game.round == 1\n"
        "asteroid B\nsettler s1 at=B\n",
        encoding="utf-8",
    )
    out = io.StringIO()
    assert run_files([str(one), str(two)], quiet=True, out=out) == 0, out.getvalue()
    assert out.getvalue().splitlines() == ["2 passed, 0 failed"]


def test_quiet_prints_only_failures_errors_and_summary(tmp_path: Path) -> None:
    text = "asteroid A mantle=1\nsettler s1 at=A\nshow\ndo s1 drill\nexpect A.mantle == 1\nreject do s1 drill\nnope\n"
    code, quiet_lines, name = run_text(tmp_path, text, quiet=True)
    assert code == 2
    assert quiet_lines == [
        f"{name}:5: check failed: expect A.mantle == 1 (was 0)",
        f"{name}:7: error: unknown statement 'nope'",
        "1 passed, 1 failed",
    ]
    code, loud_lines, _ = run_text(tmp_path, text, quiet=False)
    assert code == 2
    assert "s1 drilled A (mantle 1 -> 0)" in loud_lines
    assert any(line.startswith("settler s1") or "s1" in line for line in loud_lines[:5])
    assert loud_lines[-1] == "1 passed, 1 failed"


def test_events_are_printed_one_a_line(tmp_path: Path) -> None:
    text = EXPLODED.replace("asteroid B\n", "") + "asteroid B\nasteroid C mantle=0 core=uranium\nlink B C\n"
    text += "settler s1 at=C\nsettler s2 at=B\nrobot r1 at=C ai=off\nsun C near\nstorm B\n"
    code, lines, _ = run_text(tmp_path, text, quiet=False)
    assert code == 0
    assert lines == [
        "the uranium of A is exposed near the Sun (1 of 1)",
        "A exploded",
        "C is now near the Sun",
        "the uranium of C is exposed near the Sun (1 of 1)",
        "C exploded",
        "s1 died in the explosion of C",
        "r1 was thrown from C and landed on B",
        "a solar storm hit B",
        "s2 died in a solar storm on B",
        "r1 was destroyed by a solar storm on B",
        "every settler is dead: the game is lost",
        "0 passed, 0 failed",
    ]


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("asteroid A\nexpect A.mantle == 2\nbad statement\n"))
    out = io.StringIO()
    assert run_files(["-"], quiet=True, out=out) == 2
    assert out.getvalue().splitlines() == [
        "-:2: check failed: expect A.mantle == 2 (was 3)",
        "-:3: error: unknown statement 'bad'",
        "0 passed, 1 failed",
    ]


def test_show_prints_things(tmp_path: Path) -> None:
    text = (
        "asteroid A mantle=0 core=iron\nasteroid B orbit=3/1/0\nlink A B\nsettler s1 at=A carry=ice:2\n"
        "robot r1 at=B\nufo u1 at=B ai=off\ngates g1=A g2=s1\nforecast 2 A\n"
        "show\nshow A\nshow s1\nshow r1\nshow u1\nshow g1\nshow game\n"
        "storm A\nshow s1\nshow g2\n"
    )
    code, lines, _ = run_text(tmp_path, text, quiet=False)
    assert code == 0, lines
    text_out = "\n".join(lines)
    assert "game: round 1, running" in text_out
    assert "asteroid A: mantle 0, core iron, far (pinned far)" in text_out
    assert "asteroid B: mantle 3, core hollow, near (orbit 3/1/0)" in text_out
    assert "settler s1: on A, cargo ice 2, gates g2" in text_out
    assert "robot r1: on B, ai on" in text_out
    assert "ufo u1: on B, ai off, hold empty" in text_out
    assert "gate g1: orbits A, partner g2, inactive" in text_out
    assert "settler s1: dead" in text_out
    assert "gate g2: destroyed" in text_out


def test_lexical_details(tmp_path: Path) -> None:
    text = (
        "asteroid A\tmantle=2   core=iron\r\n"
        "\r\n"
        "   # a comment line\n"
        "asteroid B# a comment right after a word\n"
        "link A B # trailing\r\n"
        "settler s-1_x at=A\n"
        "asteroid a\n"
        "expect A.neighbours == B\r\n"
        "expect s-1_x.at == A\n"
        "expect a.exists == true\n"
        "expect A.core == iron\n"
        "expect A.mantle == 5\n"
    )
    code, lines, name = run_text(tmp_path, text)
    assert code == 1
    assert lines == [f"{name}:12: check failed: expect A.mantle == 5 (was 2)", "4 passed, 1 failed"]


def test_only_spaces_and_tabs_separate_words(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid\u00a0A\n")
    assert code == 2
    assert lines[0] == f"{name}:1: error: unknown statement 'asteroid\\xa0A'"


def test_after_the_end_link_and_forces_change_nothing(tmp_path: Path) -> None:
    text = (
        "asteroid A\nasteroid B\nasteroid C mantle=0 core=ice\nsettler s1 at=A\nstorm A\n"
        "expect game.status == lost\nlink A B\nsun C near\nstorm B\nforecast 1 C\nend-round\n"
        "expect A.neighbours == none\nexpect C.core == ice\nexpect C.sun == far\nexpect game.round == 1\n"
        "reject do s1 wait\nsettler s2 at=B\n"
    )
    code, lines, name = run_text(tmp_path, text)
    assert code == 2
    assert lines == [
        f"{name}:17: error: the game has ended (lost): no new things can be added",
        "6 passed, 0 failed",
    ]


def test_reject_with_the_code_the_rules_give_passes(tmp_path: Path) -> None:
    code, lines, _ = run_text(tmp_path, "asteroid A mantle=2\nsettler s1 at=A\nreject=mantle_left do s1 mine\n")
    assert (code, lines) == (0, ["1 passed, 0 failed"])


def test_reject_refused_with_another_code_fails(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A mantle=2\nsettler s1 at=A\nreject=core_hollow do s1 mine\n"
                                           "expect A.mantle == 2\n")
    assert code == 1
    assert lines == [f"{name}:3: check failed: reject=core_hollow do s1 mine (was refused: mantle_left)",
                     "1 passed, 1 failed"]


def test_reject_with_a_code_that_is_accepted_fails_and_stays_applied(tmp_path: Path) -> None:
    code, lines, name = run_text(tmp_path, "asteroid A\nsettler s1 at=A\nreject=mantle_left do s1 drill\n"
                                           "expect A.mantle == 2\n")
    assert code == 1
    assert lines == [f"{name}:3: check failed: reject=mantle_left do s1 drill (was accepted)", "1 passed, 1 failed"]


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("reject=no_such_code do s1 mine", "unknown refusal code 'no_such_code' (known: game_over, "),
        ("reject= do s1 mine", "reject= needs a refusal code (known: game_over, "),
        ("reject=mantle_left s1 mine", "expected: reject=CODE do ACTOR ACTION [ARGS]"),
        ("reject=mantle_left do s1 fly", "unknown action 'fly'"),
    ],
)
def test_reject_with_a_bad_code_is_a_script_error(tmp_path: Path, statement: str, reason: str) -> None:
    code, lines, name = run_text(tmp_path, f"asteroid A\nsettler s1 at=A\n{statement}\n")
    assert code == 2
    assert lines[0].startswith(f"{name}:3: error: {reason}"), lines
