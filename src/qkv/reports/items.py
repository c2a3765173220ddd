"""Item analysis: how well each quiz question and each check tells the class apart.

Per item: difficulty (the share of full marks), discrimination (the point-biserial correlation of
the item's score with the rest of the student's score, and the upper-lower index: the item's mean
in the top 27 % of the class by total minus its mean in the bottom 27 %), and a flag, with the
thresholds of PrairieLearn's assessment statistics and Moodle's quiz statistics report. Each
catalogued misconception's share of the class comes with it. Written as items.csv beside the
gradebook and as a section of report.html.
"""

from __future__ import annotations

import csv
import math
from array import array
from dataclasses import dataclass

from qkv.reports.pages import esc

NEARLY_EVERYONE = 0.95  # difficulty above this: the item hardly tells students apart
TOO_HARD = 0.2  # difficulty below this: too hard, or the key is wrong
WEAK = 0.2  # discrimination below this (or negative) with a middling difficulty: check the key
TAIL = 0.27  # the upper and lower groups of the upper-lower index
FLAGS = {
    "key": "check the key",
    "easy": "nearly everyone",
    "hard": "too hard or miskeyed",
}
HEADER = ("kind", "part", "item", "students", "difficulty", "point_biserial", "upper_lower", "flag")


@dataclass(frozen=True)
class Item:
    kind: str  # "quiz" or "check", or "misconception" (then difficulty is its share of the class)
    part: str
    name: str
    students: int
    difficulty: float
    point_biserial: float | None = None
    upper_lower: float | None = None
    flag: str = ""


class ItemTally:
    """Reads one student's result at a time; keeps each item's score share per student (4 bytes
    each) and the totals, which the correlations need."""

    def __init__(self) -> None:
        self.totals = array("d")
        self.items: dict[str, tuple[str, float, array]] = {}  # name -> (part, max, shares)
        self.mistakes: dict[str, tuple[str, int]] = {}  # id -> (part, students)

    def add(self, result) -> None:
        n = len(self.totals)
        self.totals.append(sum(t.score for t in result.tests))
        named = {}
        for t in result.tests:
            if t.max_score <= 0:
                continue
            shares = self.items.setdefault(t.name, (t.part, t.max_score, array("f")))[2]
            shares.extend([math.nan] * (n - len(shares)))  # items this student's class lacked
            shares.append(t.score / t.max_score)
            if t.mistake:
                named[t.mistake] = t.part
        for mistake, part in named.items():
            self.mistakes[mistake] = (part, self.mistakes.get(mistake, (part, 0))[1] + 1)

    def analysis(self) -> list[Item]:
        out = []
        for name, (part, top, shares) in self.items.items():
            out.append(_item(name, part, top, shares, self.totals))
        out.sort(key=lambda i: (i.kind != "quiz", i.part, i.name))
        n = len(self.totals)
        for mistake, (part, count) in sorted(self.mistakes.items()):
            out.append(Item("misconception", part, mistake, count, count / n if n else 0.0))
        return out


def _item(name: str, part: str, top: float, shares: array, totals: array) -> Item:
    pairs = [(s, t) for s, t in zip(shares, totals) if not math.isnan(s)]
    xs = [s for s, _ in pairs]
    rest = [t - s * top for s, t in pairs]
    difficulty = sum(xs) / len(xs) if xs else 0.0
    r = _pearson(xs, rest)
    ul = _upper_lower(pairs)
    return Item(
        "quiz" if part == "quiz" else "check",
        part,
        name,
        len(xs),
        difficulty,
        r,
        ul,
        _flag(difficulty, r),
    )


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None  # everyone alike on the item or on the rest: nothing to correlate
    return sxy / math.sqrt(sxx * syy)


def _upper_lower(pairs: list[tuple[float, float]]) -> float | None:
    if len(pairs) < 2:
        return None
    k = max(1, round(TAIL * len(pairs)))
    ranked = sorted(pairs, key=lambda p: p[1])
    lower, upper = ranked[:k], ranked[-k:]
    return sum(s for s, _ in upper) / k - sum(s for s, _ in lower) / k


def _flag(difficulty: float, discrimination: float | None) -> str:
    if difficulty > NEARLY_EVERYONE:
        return FLAGS["easy"]
    if difficulty < TOO_HARD:
        return FLAGS["hard"]
    if discrimination is not None and discrimination < WEAK:
        return FLAGS["key"]
    return ""


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.3f}"


def write_csv(path, items: list[Item]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for i in items:
            w.writerow(
                (
                    i.kind,
                    i.part,
                    i.name,
                    i.students,
                    _num(i.difficulty),
                    _num(i.point_biserial),
                    _num(i.upper_lower),
                    i.flag,
                )
            )


def section(items: list[Item]) -> str:
    """The report's "Item analysis" section: flagged items first, then the misconceptions' shares."""
    graded = [i for i in items if i.kind != "misconception"]
    if not graded:
        return ""
    rank = {FLAGS["key"]: 0, FLAGS["hard"]: 1, FLAGS["easy"]: 2, "": 3}
    rows = "".join(
        f"<tr><td>{esc(i.name)}</td><td>{esc(i.kind)}</td>"
        f'<td class="num">{i.difficulty:.0%}</td><td class="num">{_num(i.point_biserial)}</td>'
        f'<td class="num">{_num(i.upper_lower)}</td><td>{esc(i.flag)}</td></tr>\n'
        for i in sorted(graded, key=lambda i: rank[i.flag])
    )
    shares = "".join(
        f'<tr><td><span class="tag">{esc(i.name)}</span></td><td>{esc(i.part)}</td>'
        f'<td class="num">{i.difficulty:.0%}</td></tr>\n'
        for i in items
        if i.kind == "misconception"
    )
    text = (
        "<h2>Item analysis</h2>\n<p>Per quiz question and check: difficulty (the share of full "
        "marks), discrimination (point-biserial against the rest of the score, and the "
        "upper-lower 27 % index), flagged as PrairieLearn and Moodle do. Also in items.csv.</p>\n"
        '<div class="scroll"><table><tr><th>item</th><th>kind</th><th class="num">difficulty</th>'
        '<th class="num">point-biserial</th><th class="num">upper-lower</th><th>flag</th></tr>\n'
        f"{rows}</table></div>"
    )
    if shares:
        text += (
            '\n<p>Each misconception\'s share of the class:</p>\n<div class="scroll"><table><tr>'
            f'<th>misconception</th><th>part</th><th class="num">students</th></tr>\n{shares}'
            "</table></div>"
        )
    return text
