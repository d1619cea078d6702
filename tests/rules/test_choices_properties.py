"""`Game.choices` agrees with `legal_actions`, `check` and `apply` over random play, and `take_touched` names
every thing whose view entry changed (hypothesis state machines over the games of test_properties)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis.stateful import invariant, rule

from asteroid_mining.rules import REFUSAL_KINDS, Game, Refusal, Refused
from asteroid_mining.texts import LANGS, refusal_text

from .test_properties import RandomPlay, RichPlay


def assert_well_formed(refusal: Refusal) -> None:
    """A refusal gives every parameter its code declares, and no other; the translation files word it in each
    language with every mark filled."""
    kind = REFUSAL_KINDS[refusal.code]
    assert set(kind.params) <= set(refusal.params) <= set(kind.params) | set(kind.optional), refusal
    for lang in LANGS:
        sentence = refusal_text(refusal.code, refusal.params, lang)
        assert sentence != refusal.code and not re.search(r"\{\w+\}", sentence), (lang, refusal, sentence)


def assert_choices_agree(game: Game, actor: str) -> None:
    """Legal ⇔ no refusal; each refusal is `check`'s; the legal ones are `legal_actions`; `apply` raises the
    refused ones with the same code and changes nothing."""
    choices = game.choices(actor)
    legal = game.legal_actions(actor)
    assert choices.legal() == legal
    assert choices.settler == actor and choices.round == game.round
    for choice in choices.choices:
        assert choice.refusal == game.check(choice.action), choice
        if choice.refusal is not None:
            assert_well_formed(choice.refusal)
    refused = [c for c in choices.choices if c.refusal is not None]
    if refused:
        before = json.dumps(game.to_json(), sort_keys=True)
        for choice in refused[:4]:
            try:
                game.apply(choice.action)
            except Refused as exc:
                assert choice.refusal is not None and exc.code == choice.refusal.code
            else:
                raise AssertionError(f"{choice.action} was refused in the choices but accepted by apply")
        assert json.dumps(game.to_json(), sort_keys=True) == before
    json.dumps(choices.to_json())  # JSON-ready


def views(game: Game) -> dict[str, Any]:
    """Every thing's view entry, without the fields that change with the round alone."""
    ids = [*game.asteroids, *game.settlers, *game.robots, *game.ufos, *game.gates]
    return {tid: game.thing_view(tid, sun=False) for tid in ids}


class _ChoicesMixin:
    """Adds the checks of choices and touched ids to a random-play machine."""

    game: Game
    _seen: dict[str, Any] | None = None

    @rule()
    def choices_agree_with_the_judge(self) -> None:
        game = self.game
        for actor in [*game.settlers, *game.robots, *game.ufos]:
            assert_choices_agree(game, actor)

    @invariant()
    def touched_names_every_change(self) -> None:
        if not hasattr(self, "game"):
            return
        now = views(self.game)
        touched = self.game.take_touched()
        if self._seen is not None:
            changed = {tid for tid, entry in now.items() if self._seen.get(tid) != entry}
            assert changed <= touched, f"changed but not touched: {sorted(changed - touched)}"
        self._seen = now

    @invariant()
    def the_view_agrees_with_thing_view(self) -> None:
        if not hasattr(self, "game"):
            return
        view = self.game.view()
        for section in ("asteroids", "settlers", "robots", "ufos", "gates"):
            for entry in view[section]:
                assert entry == self.game.thing_view(entry["id"])


class RandomPlayChoices(_ChoicesMixin, RandomPlay):
    """Random legal play in strict turns on random belts."""


class RichPlayChoices(_ChoicesMixin, RichPlay):
    """Random play with full holds: builds, gates, wins."""


_SETTINGS = settings(max_examples=40, stateful_step_count=30, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
RandomPlayChoices.TestCase.settings = _SETTINGS
RichPlayChoices.TestCase.settings = _SETTINGS
TestRandomPlayChoices = RandomPlayChoices.TestCase
TestRichPlayChoices = RichPlayChoices.TestCase
