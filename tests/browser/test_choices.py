"""The engine is the one judge: at every step of a game, each button's state and each reason on screen is the
one the server's `choices` said (the client judges nothing itself)."""

from __future__ import annotations

import json
import re
from typing import Any

from .belts import BONANZA_PLAN, WORKSHOP_PLAN, bonanza_belt, bonanza_seed, workshop_belt, workshop_seed
from .conftest import ROOT, Page, Server, open_game
from .test_play import play_step

EN = json.loads((ROOT / "web" / "static" / "i18n" / "en.json").read_text())
LABEL = {"drill": "Drill", "mine": "Mine", "deposit": "Deposit", "build_robot": "Build robot",
         "build_gates": "Build gates", "place": "Place gate", "wait": "Wait"}


def sentence(refusal: dict[str, Any]) -> str:
    """A refusal in English, from its code and params alone (as a reader of the contract would write it)."""
    p: dict[str, Any] = dict(refusal["params"])
    if isinstance(p.get("actor"), str) and re.fullmatch(r"s\d+", p["actor"]):
        p["actor"] = f"Settler {p['actor'][1:]}"
    if isinstance(p.get("turn"), str) and p["turn"]:
        p["turn"] = f"Settler {p['turn'][1:]}"
    if "build" in p:
        p["what"] = EN[f"build.{p['build']}"]
        p["lack"] = EN["list.and"].join(f"{p[k]} {k}" for k in ("ice", "iron", "carbon", "uranium") if p.get(k))
    if isinstance(p.get("gates"), list):
        p["gates"] = ", ".join(p["gates"])
    if "status" in p:
        p["status"] = EN[f"status.{p['status']}"]
    if "core" in p:
        p["core"] = EN[f"core.{p['core']}"]
    key = f"refusal.{refusal['code']}"
    if "mantle" in p:
        p["n"] = p["mantle"]
        key += "_one" if p["mantle"] == 1 else "_other"
    return re.sub(r"\{(\w+)\}", lambda m: str(p[m.group(1)]), EN[key])


def check_screen(page: Page) -> int:
    """Compares every button and destination with the choices the screen received; the number compared."""
    state = page.evaluate("""() => {
      const turn = document.querySelector('.order li.now')?.innerText;
      const all = window.__am.choices();
      const mine = Object.values(all).find((c) => c?.settler === 's' + turn);
      const buttons = {};
      for (const b of document.querySelectorAll('.actionbar .action')) {
        buttons[b.dataset.action] = b.getAttribute('aria-disabled');
      }
      const dests = [...document.querySelectorAll('.dest')].map((li) => [li.dataset.target,
        li.querySelector('button').getAttribute('aria-disabled'), li.querySelector('.why')?.innerText ?? null]);
      return { mine, buttons, dests };
    }""")
    choices = state["mine"]["choices"]
    compared = 0
    moves = {c["target"]: c for c in choices if c["action"] == "move"}
    assert sorted(moves) == sorted(d[0] for d in state["dests"])
    for target, disabled, why in state["dests"]:
        refusal = moves[target]["refusal"]
        assert disabled == ("true" if refusal else "false"), target
        assert why == (sentence(refusal) if refusal else None), target
        compared += 1
    # The pointer may still rest on the button just pressed, whose line tells what that action did: a button
    # explains itself when the pointer comes onto it.
    page.mouse.move(1, 1)
    for action, disabled in state["buttons"].items():
        entries = [c for c in choices if c["action"] == action]
        legal = [c for c in entries if c["refusal"] is None]
        assert disabled == ("false" if legal else "true"), action
        page.hover(f".action-{action}")
        reason = page.inner_text("#action-reason")
        if not legal and entries:
            assert reason == f"{LABEL[action]}: {sentence(entries[0]['refusal'])}", action
        elif not entries:
            assert reason == f"{LABEL[action]}: {EN['place.none']}", action
        elif entries[0].get("danger"):
            assert "near the Sun" in reason or "explode" in reason or "boil" in reason, reason
        else:
            assert reason == EN[f"help.{action}"], action
        compared += 1
    page.mouse.move(1, 1)
    return compared


def wait_for_choices(page: Page) -> None:
    page.wait_for_function("Object.values(window.__am.choicesSeq).some((s) => s >= window.__am.seq)")


def test_every_button_and_reason_is_the_servers_choice(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=workshop_belt(), seed=workshop_seed())
    page = new_page()
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda text: sent.append(json.loads(text))))
    open_game(page, server, game)
    compared = 0
    for step in WORKSHOP_PLAN:
        wait_for_choices(page)
        compared += check_screen(page)
        offered = page.evaluate("() => window.__am.choices()")
        play_step(page, step)
        # the act sent is the entry the server offered, every field of it but the player's hints: nothing rebuilt
        act = [m for m in sent if m.get("type") == "act"][-1]
        played = {k: v for k, v in act.items() if k not in ("type", "settler", "ref")}
        entries = [{k: v for k, v in c.items() if k not in ("refusal", "danger")}
                   for c in offered[act["settler"]]["choices"]]
        assert played in entries and played["action"] == step["action"], (played, step)
    assert compared > 150


def test_hot_seat_gets_each_seats_choices(server: Server, new_page: Any) -> None:
    game = server.create(seats=2, settlers_per_seat=1, belt=bonanza_belt(), seed=bonanza_seed())
    page = new_page()
    open_game(page, server, game)
    for step in BONANZA_PLAN[:8]:
        page.wait_for_function("Object.keys(window.__am.choices()).length === 2")
        page.wait_for_function(f"window.__am.choices()['{step['settler']}']?.choices.some((c) => !c.refusal)")
        check_screen(page)
        play_step(page, step)
