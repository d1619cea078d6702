"""The lexer's quick split of plain lines gives the words `split_words` gives, on every kind of line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from asteroid_mining.script.lexer import numbered_words, split_words, tokenize

LINES = [
    "link A B", "link  A B", " link A B", "link A B ", "link\tA B", "link A B\r", "link A B # why", "#", "",
    "   ", "\t", "link A\u00a0B", "asteroid A mantle=3 core=ice orbit=6/2/0", "link A B#c", "\r",
]


def _slow(source: str) -> list[tuple[int, tuple[str, ...]]]:
    lines = enumerate(source.split("\n"), start=1)
    return [(number, split_words(raw)) for number, raw in lines if split_words(raw)]


def test_every_kind_of_line_splits_as_split_words_says() -> None:
    source = "\n".join(LINES)
    assert list(numbered_words(source)) == _slow(source)
    assert [(line.number, line.words) for line in tokenize(source)] == _slow(source)


@given(st.text(alphabet=st.sampled_from(list("ab =#\t\r\n\u00a0\x0b")), max_size=40))
def test_any_text_splits_as_split_words_says(source: str) -> None:
    assert list(numbered_words(source)) == _slow(source)


def test_the_collector_is_back_on_after_a_run_whatever_happens() -> None:
    import gc
    import io

    from asteroid_mining.script.interpreter import Interpreter
    from asteroid_mining.script.reporter import Reporter

    assert gc.isenabled()
    for text in ("asteroid A\nasteroid B\nlink A B\n", "asteroid A\nlink A Q\n", "asteroid A\nexpect A.mantle == 3\n"):
        Interpreter("x.scn", Reporter(io.StringIO(), quiet=True)).run(text)
        assert gc.isenabled()
