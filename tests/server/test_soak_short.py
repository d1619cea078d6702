"""The soak test's short profile (`tests/soak.py`; `make soak` runs the long one): a real server, a few games,
bots, misbehaving clients, clients that never read a byte while they ask for the whole state or flood pings, and a
`kill -9` and restart. No client may see a gap, every log must replay, the server's log must hold no traceback,
and its resident set must stay bounded. Its event loop's lag is measured and printed, not judged: the suite times
nothing."""

from __future__ import annotations

from pathlib import Path

from .. import soak


def test_a_short_soak(tmp_path: Path) -> None:
    args = ["--minutes", "0.4", "--games", "8", "--kill-every", "12", "--slow-readers", "2", "--ping-floods", "1",
            "--max-rss-mib", "512", "--max-lag", "0", "--seed", "3", "--data", str(tmp_path / "soak")]
    assert soak.main(args) == 0
