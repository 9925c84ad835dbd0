"""A ``bull probe`` peer (JSON Lines on stdin/stdout) answering as one of the tests'
independent implementations — the ones the games' cause tests verify, written from
RULES.md with a switch per catalogued rule option and mistake:

- Niu Niu: :class:`niuniu.causes_model.Model` (``has_bull``, ``points``, ``category``;
  showdowns ``winner``, ``net``);
- Pok Deng: :class:`pokdeng.causes_model.Impl` (``type``, ``points``, ``deng``;
  ``winner``, ``net``);
- Tau Ngau: :class:`taungau.causes_model.Impl` (those of ``taungau.test_causes``;
  ``has_bull``, ``points`` and the claimed ``bull`` of a wrong-bull implementation;
  ``winner``, ``net``, a banker revealing last decided on the exact expectation over
  the 80,730 banker hands). It sorts the tiles first, as those tests write them (a
  search for the first bull found, ``mistake=first_bull``, in canonical order), except
  the one that searches the tiles as written (``mistake=first_bull_as_written``).

Run as ``python _model_peer.py GAME CONFIG_JSON [FIELDS]`` (the implementation's
fields as JSON; :func:`config` writes them); with ``FIELDS`` (``winner,net``) it speaks
the plain-lines protocol instead: a hand, or ``PLAYER | BANKER``, per line, and those
fields back as one CSV line. Nothing here asks the solver: the answers are the
implementation's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def config(impl: Any, showdowns: bool = True) -> str:
    """An implementation's fields as the peer's JSON argument; ``showdowns=False``: it
    states nothing on a showdown (an implementation of hands only)."""
    data = dataclasses.asdict(impl)
    out = {k: sorted(v) if isinstance(v, frozenset) else v for k, v in data.items()}
    return json.dumps({**out, "_showdowns": showdowns})


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def niuniu(cfg: dict[str, Any]) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    from niuniu import causes_model as cm

    m = cm.Model(**{k: _tuples(v) for k, v in cfg.items()})
    ids = {n: i for i, n in enumerate(cm.NAMES)}

    def cards(rows: list[list[str]]) -> np.ndarray:
        return np.array([[ids[c] for c in r] for r in rows], dtype=np.uint8).reshape(-1, 5)

    def answer(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{} for _ in qs]
        hands = [i for i, q in enumerate(qs) if "hand" in q]
        shows = [i for i, q in enumerate(qs) if "hand" not in q]
        if hands:
            a = cm.hand_answers(cards([qs[i]["hand"] for i in hands]), m, strength=False)
            for j, i in enumerate(hands):
                out[i] = {
                    "has_bull": bool(a["has_bull"][j]),
                    "points": int(a["points"][j]),
                    "category": cm.LABELS[int(a["category"][j])],
                }
        if shows:
            p = cards([qs[i]["player"] for i in shows])
            b = cards([qs[i]["banker"] for i in shows])
            s = cm.showdown_answers(p, b, m)
            for j, i in enumerate(shows):
                out[i] = {"winner": cm.WINNERS[int(s["winner"][j])], "net": float(s["net"][j])}
        return out

    return answer


def pokdeng(cfg: dict[str, Any]) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    from pokdeng import causes_model as pc  # no pytest, pyarrow or solver

    cfg = {k: _tuples(v) for k, v in cfg.items()}
    cfg["mistakes"] = frozenset(cfg["mistakes"])
    impl = pc.Impl(**cfg)

    def one(q: dict[str, Any]) -> dict[str, Any]:
        if "hand" in q:
            t, pts, deng, _ = pc.classify(impl, tuple(q["hand"]))
            return {"type": t, "points": pts, "deng": deng}
        net = pc.settle(impl, tuple(q["player"]), tuple(q["banker"]))
        return {"winner": "player" if net > 0 else "dealer" if net < 0 else "push", "net": net}

    return lambda qs: [one(q) for q in qs]


def taungau(cfg: dict[str, Any]) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    from taungau import causes_model as tc  # numpy only: no pytest, pyarrow or solver
    from taungau import fixtures as ref

    impl = tc.Impl(**cfg)
    at: dict[str, list[int]] = {}
    for i, n in enumerate(ref.NAMES):
        at.setdefault(n, []).append(i)

    def tiles(rows: list[list[str]]) -> np.ndarray:
        out = []
        for r in rows:
            used: dict[str, int] = {}
            row = []
            for t in r:  # the k-th copy of a tile type is its k-th physical tile
                row.append(at[t][used.get(t, 0)])
                used[t] = used.get(t, 0) + 1
            out.append(row)
        # in canonical order (RULES §8), as the cause tests give the hands: the search
        # order of a first-found or wrong bull is the implementation's, not the writer's;
        # but the one searching as written keeps the order asked
        got = np.array(out, dtype=np.int64).reshape(-1, 5)
        return got if impl.bull == "first_written" else np.sort(got, axis=1)

    def settle(player: np.ndarray, banker: np.ndarray) -> list[int]:
        ps, bs = tc.evaluate(impl, player)[0], tc.evaluate(impl, banker)[0]
        if impl.settlement == "even_money":
            return [int(x) for x in np.sign(ps - bs).tolist()]
        pp, pb, nb = tc.payoff(impl, ps), tc.payoff(impl, bs), tc.no_bull(impl, bs)
        if not impl.decline:
            dec = np.zeros(len(ps), dtype=bool)
        elif impl.reveals == "first":
            dec = (ps > 0) & (pp - pb < -nb)
        else:  # decided on the rules' own play of the hand, over every banker hand
            own = dataclasses.replace(impl, bull="", values="")
            rs = tc.evaluate(own, player)[0]
            counts = tc.banker_counts(own.zero, player)
            s = np.arange(11)
            keep = tc.payoff(own, rs) * tc.BANKER_HANDS - counts @ tc.payoff(own, s)
            dec = (ps > 0) & (rs > 0) & (-(counts @ tc.no_bull(own, s)) > keep)
        return [int(x) for x in np.where((ps == 0) | dec, -nb, pp - pb).tolist()]

    def answer(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{} for _ in qs]
        hands = [i for i, q in enumerate(qs) if "hand" in q]
        shows = [i for i, q in enumerate(qs) if "hand" not in q]
        if hands:
            h = tiles([qs[i]["hand"] for i in hands])
            s, pick = tc.evaluate(impl, h)
            points = tc.points_of(impl, s)
            for j, i in enumerate(hands):
                out[i] = {"has_bull": bool(s[j] > 0), "points": points[j]}
                if impl.bull == "claimed":
                    k = int(pick[j])
                    tri = tc.TRIPLES[k] if k >= 0 else ()
                    out[i]["bull"] = "".join(ref.NAMES[h[j][p]] for p in tri) or "none"
        if shows:
            p = tiles([qs[i]["player"] for i in shows])
            b = tiles([qs[i]["banker"] for i in shows])
            for i, net in zip(shows, settle(p, b), strict=True):
                winner = "player" if net > 0 else "banker" if net < 0 else "push"
                out[i] = {"winner": winner, "net": net}
        return out

    return answer


def plain_lines(
    answer: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], fields: str
) -> None:
    """The plain-lines protocol: one question a line, the ``fields`` back in order."""
    names = fields.split(",")
    for line in sys.stdin:
        text = line.strip()
        if " | " in text:
            p, b = text.split(" | ")
            q: dict[str, Any] = {"player": p.split(), "banker": b.split()}
        else:
            q = {"hand": text.split()}
        a = answer([q])[0]
        print(",".join(json.dumps(a[f]).strip('"') for f in names), flush=True)


def main() -> None:
    sys.path.insert(0, HERE)
    game, cfg = sys.argv[1], json.loads(sys.argv[2])
    showdowns = cfg.pop("_showdowns", True)
    rules = {"niuniu": niuniu, "pokdeng": pokdeng, "taungau": taungau}[game](cfg)

    def answer(qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        got = rules(qs if showdowns else [q for q in qs if "hand" in q])
        if showdowns:
            return got
        hands = iter(got)
        return [next(hands) if "hand" in q else {} for q in qs]

    if len(sys.argv) > 3:
        plain_lines(answer, sys.argv[3])
        return
    buf = b""
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        qs = [json.loads(x) for x in lines if x.strip()]
        if not qs:
            continue
        got = answer(qs)
        text = "".join(
            json.dumps({"id": q["id"], **a}) + "\n" for q, a in zip(qs, got, strict=True)
        )
        sys.stdout.write(text)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
