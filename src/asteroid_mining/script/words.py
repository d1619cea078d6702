"""The words of `do` (SCENARIO.md), derived from the engine's action specs.

An action's name with `_` read as a space is what a script writes (`build_robot` is `build robot`), and its
fields follow as positional words in the record's order: required ones, then optional ones, which are given all
or none (`build gates [G1 G2]`). A new action in the engine is thus a new action of the language too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import ACTION_SPECS
from ..rules.actions import ActionSpec, FieldSpec


@dataclass(frozen=True, slots=True)
class ActionWords:
    """How a script writes one action: its words and its fields' placeholders."""

    spec: ActionSpec
    words: tuple[str, ...]
    """The action's name as words: `("build", "robot")`."""

    @property
    def required(self) -> tuple[FieldSpec, ...]:
        """The fields every use gives."""
        return tuple(f for f in self.spec.fields if f.required)

    @property
    def optional(self) -> tuple[FieldSpec, ...]:
        """The fields given all together or not at all."""
        return tuple(f for f in self.spec.fields if not f.required)

    def counts(self) -> tuple[int, ...]:
        """How many words may follow the action's own words."""
        low = len(self.required)
        return (low, low + len(self.optional)) if self.optional else (low,)

    def usage(self) -> str:
        """The action as SCENARIO.md writes it: `move X`, `build gates [G1 G2]`."""
        parts = [*self.words, *(f.word for f in self.required)]
        if self.optional:
            parts.append("[" + " ".join(f.word for f in self.optional) + "]")
        return " ".join(parts)


ACTION_WORDS: tuple[ActionWords, ...] = tuple(ActionWords(spec, tuple(spec.name.split("_"))) for spec in ACTION_SPECS)
"""Every action of `do`, in the engine's order."""

FIRST_WORDS: dict[str, tuple[ActionWords, ...]] = {}
"""The actions by their first word (`build` names two), first words in the engine's order."""
for _action in ACTION_WORDS:
    FIRST_WORDS[_action.words[0]] = (*FIRST_WORDS.get(_action.words[0], ()), _action)


def choose(first: str, rest: tuple[str, ...] | list[str]) -> tuple[ActionWords, tuple[str, ...]] | None:
    """The action written `first` followed by `rest` and the words that follow its own (its fields' values);
    None when `first` is no action's first word, or the next words name none of those it begins."""
    for action in FIRST_WORDS.get(first, ()):
        own = len(action.words) - 1
        if tuple(rest[:own]) == action.words[1:]:
            return action, tuple(rest[own:])
    return None
