"""Images for the HTML pages: labelled heatmaps of matrices and the score histogram, as SVG.

Written as text (no plotting library to import, tens of microseconds a figure): the same numbers
give the same bytes. Pages embed them as data: URIs, so they open offline.
"""

from __future__ import annotations

import base64
import html
from functools import lru_cache

import numpy as np

DECIMALS = 2  # what the cells show; the colours are drawn from the same rounded values
# matplotlib's "Blues" (ColorBrewer), from 0 to 1; colours between are interpolated.
BLUES = (
    "#f7fbff",
    "#deebf7",
    "#c6dbef",
    "#9ecae1",
    "#6baed6",
    "#4292c6",
    "#2171b5",
    "#08519c",
    "#08306b",
)
NOT_FINITE = "#d0d0d0"
FONT = 'font-family="DejaVu Sans, Verdana, sans-serif"'
CELL_W, CELL_H = 56, 36


def _text(value) -> str:
    """Text for an SVG element: &, < and > escaped (quotes need none outside attributes)."""
    return html.escape(str(value), quote=False)


def data_uri(svg: bytes) -> str:
    """A data: URI, so a page carries its images and opens offline."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def matrix_svg(
    matrix,
    rows,
    cols,
    *,
    title: str,
    outline=None,
    row_sums: bool = True,
    xlabel: str = "",
    ylabel: str = "",
) -> bytes:
    """A labelled heatmap of a matrix of values in [0, 1], with each value written in its cell.

    Args:
        matrix: 2-D numbers (non-finite values are drawn grey and written as they are).
        rows, cols: labels of the rows and columns.
        title: shown above the map.
        outline: optional 2-D booleans of the same shape; True cells get a red frame.
        row_sums: write each row's sum on the right (for rows of weights that should sum to 1).
        xlabel, ylabel: what the columns and rows stand for.
    """
    a = np.round(np.asarray(matrix, dtype=float), DECIMALS)
    sums = (
        tuple(_cell(s) for s in np.asarray(matrix, dtype=float).sum(axis=1)) if row_sums else None
    )
    mask = None if outline is None else tuple(map(tuple, np.asarray(outline, dtype=bool).tolist()))
    # The image depends only on rounded values, labels and frames: most students share one of a
    # few pictures (the reference's, above all), so cache them.
    return _matrix_svg(
        tuple(map(tuple, a.tolist())), tuple(rows), tuple(cols), title, mask, sums, xlabel, ylabel
    )


@lru_cache(maxsize=256)
def _matrix_svg(values, rows, cols, title, outline, sums, xlabel, ylabel) -> bytes:
    n_rows, n_cols = len(values), len(values[0]) if values else 0
    left = 24 + 8 * max((len(str(r)) for r in rows), default=1) + (20 if ylabel else 0)
    top = 30 + 20 + (18 if xlabel else 0)
    width = left + CELL_W * n_cols + (64 if sums else 12)
    height = top + CELL_H * n_rows + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" {FONT} font-size="13">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="18" font-size="14">{_text(title)}</text>',
    ]
    if xlabel:
        out.append(
            f'<text x="{left + CELL_W * n_cols / 2:g}" y="{30 + 12}" text-anchor="middle">{_text(xlabel)}</text>'
        )
    for j, label in enumerate(cols):
        out.append(
            f'<text x="{left + CELL_W * (j + 0.5):g}" y="{top - 6}" text-anchor="middle">{_text(label)}</text>'
        )
    if ylabel:
        mid = top + CELL_H * n_rows / 2
        out.append(
            f'<text transform="translate(14 {mid:g}) rotate(-90)" text-anchor="middle">{_text(ylabel)}</text>'
        )
    for i, row in enumerate(values):
        y = top + CELL_H * i
        out.append(
            f'<text x="{left - 6}" y="{y + CELL_H / 2 + 4:g}" text-anchor="end">{_text(rows[i])}</text>'
        )
        for j, v in enumerate(row):
            x = left + CELL_W * j
            finite = bool(np.isfinite(v))
            fill = _blue(v) if finite else NOT_FINITE
            ink = "#ffffff" if finite and v > 0.55 else "#000000"
            out.append(
                f'<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{fill}"/>'
                f'<text x="{x + CELL_W / 2:g}" y="{y + CELL_H / 2 + 4:g}" text-anchor="middle" '
                f'fill="{ink}">{_cell(v)}</text>'
            )
            if outline is not None and outline[i][j]:
                out.append(
                    f'<rect x="{x + 2}" y="{y + 2}" width="{CELL_W - 4}" height="{CELL_H - 4}" '
                    'fill="none" stroke="#c0392b" stroke-width="2.5"/>'
                )
        if sums is not None:
            out.append(
                f'<text x="{left + CELL_W * n_cols + 6}" y="{y + CELL_H / 2 + 4:g}" fill="#444444" '
                f'font-size="12">Σ {sums[i]}</text>'
            )
    out.append("</svg>")
    return "".join(out).encode("utf-8")


def _blue(x: float) -> str:
    """The colour of a value in [0, 1] (clipped) on the Blues scale."""
    t = min(max(float(x), 0.0), 1.0) * (len(BLUES) - 1)
    k = min(int(t), len(BLUES) - 2)
    lo, hi = BLUES[k], BLUES[k + 1]
    mix = [
        round(int(lo[p : p + 2], 16) + (t - k) * (int(hi[p : p + 2], 16) - int(lo[p : p + 2], 16)))
        for p in (1, 3, 5)
    ]
    return "#" + "".join(f"{c:02x}" for c in mix)


def _cell(x: float) -> str:
    if not np.isfinite(x):
        return str(x)  # nan, inf, -inf: the student should see exactly that
    return f"{x:.{DECIMALS}f}".replace("-0.00", "0.00")


def _frame(width, height, left, top, plot_w, plot_h, title) -> list[str]:
    """The start of a chart: the svg element, a white background, the title and the two axes."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" {FONT} font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="20" font-size="14">{_text(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#444444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444444"/>',
    ]


def histogram_svg(percentages, *, title: str) -> bytes:
    """How many students scored in each tenth of the total, from 0 to 100 %."""
    counts, edges = np.histogram(
        np.clip(np.asarray(percentages, dtype=float), 0, 100), bins=10, range=(0, 100)
    )
    left, top, plot_w, plot_h = 56, 34, 560, 180
    width, height = left + plot_w + 24, top + plot_h + 52
    most = max(1, int(counts.max())) * 1.15
    out = _frame(width, height, left, top, plot_w, plot_h, title)
    bin_w = plot_w / 10
    for k, c in enumerate(counts.tolist()):
        x = left + bin_w * k
        h = plot_h * c / most
        if c:
            out.append(
                f'<rect x="{x:g}" y="{top + plot_h - h:g}" width="{bin_w:g}" height="{h:g}" fill="#2f6fad" '
                f'stroke="#ffffff"/><text x="{x + bin_w / 2:g}" y="{top + plot_h - h - 4:g}" '
                f'text-anchor="middle">{c}</text>'
            )
    for k, e in enumerate(edges.tolist()):
        out.append(
            f'<text x="{left + bin_w * k:g}" y="{top + plot_h + 16}" text-anchor="middle">{e:g}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2:g}" y="{top + plot_h + 38}" text-anchor="middle">'
        "total score (% of the maximum)</text>"
    )
    out.append(
        f'<text transform="translate(16 {top + plot_h / 2:g}) rotate(-90)" text-anchor="middle">students</text>'
    )
    out.append("</svg>")
    return "".join(out).encode("utf-8")


def curve_svg(
    values, *, title: str, xlabel: str = "", ylabel: str = "", log: bool = False, every: int = 1
) -> bytes:
    """A line of values against their index (a loss per step, say); None or non-finite values are gaps.

    Args:
        values: the numbers, in order; None for one that is missing.
        title: shown above the plot.
        xlabel, ylabel: what the index and the values stand for.
        log: a logarithmic y axis, if every value is positive and they span a factor of 10.
        every: the values are those of every `every`-th index: the x axis counts indices.
    """
    y = np.array([np.nan if v is None else v for v in values], dtype=float)
    finite = y[np.isfinite(y)]
    log = bool(log and finite.size and finite.min() > 0 and finite.max() > 10 * finite.min())
    shown = np.log10(np.where(y > 0, y, np.nan)) if log else y
    left, top, plot_w, plot_h = 60, 34, 270, 190
    width, height = left + plot_w + 16, top + plot_h + 50
    out = _frame(width, height, left, top, plot_w, plot_h, title)
    ok = np.isfinite(shown)
    if not ok.any():
        out.append(
            f'<text x="{left + plot_w / 2:g}" y="{top + plot_h / 2:g}" text-anchor="middle">no finite value</text>'
        )
    else:
        lo, hi = float(shown[ok].min()), float(shown[ok].max())
        span = hi - lo or 1.0
        last = max(y.size - 1, 1)

        def px(i):
            return left + plot_w * i / last

        def py(v):
            return top + plot_h - plot_h * (v - lo) / span

        runs, run = [], []
        for i, v in enumerate(shown.tolist()):
            if np.isfinite(v):
                run.append(f"{px(i):.1f},{py(v):.1f}")
            elif run:
                runs.append(run)
                run = []
        runs.append(run)
        out += [
            f'<polyline points="{" ".join(r)}" fill="none" stroke="#2f6fad" stroke-width="1.8"/>'
            for r in runs
            if r
        ]
        for v in (lo, hi):
            label = f"{10**v:.3g}" if log else f"{v:.3g}"
            out.append(f'<text x="{left - 4}" y="{py(v) + 4:.1f}" text-anchor="end">{label}</text>')
        out.append(
            f'<text x="{left}" y="{top + plot_h + 16}" text-anchor="middle">0</text>'
            f'<text x="{left + plot_w}" y="{top + plot_h + 16}" text-anchor="middle">{(y.size - 1) * every}</text>'
        )
    if xlabel:
        out.append(
            f'<text x="{left + plot_w / 2:g}" y="{top + plot_h + 38}" text-anchor="middle">{_text(xlabel)}</text>'
        )
    if ylabel:
        out.append(
            f'<text transform="translate(14 {top + plot_h / 2:g}) rotate(-90)" text-anchor="middle">'
            f"{_text(ylabel)}{' (log scale)' if log else ''}</text>"
        )
    out.append("</svg>")
    return "".join(out).encode("utf-8")
