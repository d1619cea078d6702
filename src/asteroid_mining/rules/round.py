"""The rest of a round after the settlers' steps: robots, UFOs and the end-of-round phase (R9, R12, R16a)."""

from __future__ import annotations

from .actions import Action, Wait, check, perform
from .effects import attach_gate, count_exposure, lose_core, reactive_exposed, schedule_watch
from .events import Drifted, Event, RoundStarted, Sublimated
from .materials import MATERIALS
from .robot_ai import robot_action, ufo_action
from .state import Asteroid, GameState, Robot, Ufo
from .storms import generate_forecast, hit_due_storms


def finish_round(state: GameState) -> list[Event]:
    """Robots step, then UFOs, then the end-of-round phase; nothing more once the game has ended (R16a)."""
    events: list[Event] = []
    for robot in list(state.robots.values()):
        if not state.running:
            return events
        if robot.alive and robot.ai:
            _step(state, robot, robot_action(state, robot), events)
    for ufo in list(state.ufos.values()):
        if not state.running:
            return events
        if ufo.alive and ufo.ai:
            _step(state, ufo, ufo_action(state, ufo), events)
    if state.running:
        end_of_round(state, events)
    return events


def _step(state: GameState, actor: Robot | Ufo, action: Action, events: list[Event]) -> None:
    # The policies only choose legal actions; a refusal here would be a bug, so fall back to waiting.
    if check(state, action) is not None:
        action = Wait(actor.id)
    events.extend(perform(state, actor, action))


def end_of_round(state: GameState, events: list[Event]) -> None:
    """R12, in order: storms hit; the round number goes up and orbits move on; reactions and exposure
    counts; haywire gates drift; new storms may be forecast. Stops the moment the game ends (R16a)."""
    hit_due_storms(state, events)
    if not state.running:
        return
    state.round += 1
    events.append(RoundStarted(state.round))
    _reactions(state, events)
    if not state.running:
        return
    if state.options.haywire_gates:
        _drift(state, events)
    generate_forecast(state, events)
    first_turn(state)


def _reactions(state: GameState, events: list[Event]) -> None:
    """R6 at a round start: cores the orbit has just brought near react; exposed uranium still near counts again.

    Only scheduled asteroids and those already hot are visited, in creation order (R8).
    """
    due = state.watch.pop(state.round, None)
    if due is None and not state.hot:
        return  # most rounds: nothing exposed near the Sun, nothing coming near
    asteroids = state.asteroids
    candidates = {aid: asteroids[aid] for aid in state.hot}
    for aid in due or ():
        candidates[aid] = asteroids[aid]
    ordered = list(candidates.values())
    if len(ordered) > 1:
        ordered.sort(key=_creation_index)
    for i, asteroid in enumerate(ordered):
        if not reactive_exposed(asteroid):
            state.hot.pop(asteroid.id, None)
        elif not state.is_near(asteroid):
            state.hot.pop(asteroid.id, None)
            schedule_watch(state, asteroid)
        elif MATERIALS[asteroid.core].sublimates:
            lose_core(state, asteroid)
            events.append(Sublimated(asteroid.id))
        else:
            count_exposure(state, asteroid, events)
            if not state.running:  # only an explosion ends the game here
                _left_unreacted(state, ordered[i + 1:])
                return


def _left_unreacted(state: GameState, rest: list[Asteroid]) -> None:
    """The game ended part-way through the reactions: these candidates do not react (R16a), but what is derived
    from them must still hold. The round has gone up, so the round each one reacts at (its view's `reacts_at`)
    may have moved: each is touched. A core that would have reacted stays watched (keyed by this round, which
    never starts again), so that `choices` still reports the reaction the view shows; a hot one stays hot."""
    for asteroid in rest:
        state.touched.add(asteroid.id)
        if asteroid.id not in state.hot and reactive_exposed(asteroid):
            state.watch.setdefault(state.round, []).append(asteroid.id)


def _creation_index(asteroid: Asteroid) -> int:
    return asteroid.index


def _drift(state: GameState, events: list[Event]) -> None:
    """E3: each haywire gate in orbit moves to a random neighbour of the asteroid it orbits."""
    for gate in list(state.gates.values()):
        if not (gate.haywire and gate.exists and gate.at is not None):
            continue
        here = state.asteroids[gate.at]
        if not here.neighbours:
            continue
        target = state.asteroids[state.rng.choice(list(here.neighbours))]
        del here.gates[gate.id]
        state.touched.add(here.id)
        attach_gate(state, gate, target)
        events.append(Drifted(gate.id, here.id, target.id))


def first_turn(state: GameState) -> None:
    """Strict turns: the round's first step belongs to the first living settler in creation order."""
    state.turn = None
    if state.options.turns == "strict" and state.running:
        state.turn = next_living(state, -1)


def next_living(state: GameState, after: int) -> str | None:
    """The first living settler created after position `after` of the settler order, or None."""
    order = state.settler_order
    for i in range(after + 1, len(order)):
        if state.settlers[order[i]].alive:
            return order[i]
    return None
