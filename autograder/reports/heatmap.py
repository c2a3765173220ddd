"""Images for the HTML pages: labelled heatmaps of matrices and the score histogram, as PNG bytes.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, so no global figure state), with
the "Software" PNG metadata dropped: the same numbers give the same bytes.
"""
from __future__ import annotations

import base64
import io
from functools import lru_cache

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

DPI = 100
DECIMALS = 2  # what the cells show; the colours are drawn from the same rounded values
CMAP = "Blues"
_STYLE = {"font.size": 10, "font.family": "DejaVu Sans", "axes.titlesize": 11}


def data_uri(png: bytes) -> str:
    """A data: URI, so a page carries its images and opens offline."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def matrix_png(matrix, rows, cols, *, title: str, outline=None, row_sums: bool = True, xlabel: str = "",
               ylabel: str = "") -> bytes:
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
    sums = tuple(_cell(s) for s in np.asarray(matrix, dtype=float).sum(axis=1)) if row_sums else None
    mask = None if outline is None else tuple(map(tuple, np.asarray(outline, dtype=bool).tolist()))
    # The image depends only on rounded values, labels and frames: most students share one of a
    # few pictures (the reference's, above all), so cache them.
    return _matrix_png(tuple(map(tuple, a.tolist())), tuple(rows), tuple(cols), title, mask, sums, xlabel, ylabel)


@lru_cache(maxsize=256)
def _matrix_png(values, rows, cols, title, outline, sums, xlabel, ylabel) -> bytes:
    a = np.array(values, dtype=float)
    n_rows, n_cols = a.shape
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(1.0 + 0.85 * n_cols + 0.9, 1.2 + 0.6 * n_rows), dpi=DPI, layout="constrained")
        ax = fig.add_subplot()
        shown = np.ma.masked_array(np.clip(np.nan_to_num(a), 0.0, 1.0), mask=~np.isfinite(a))
        cmap = matplotlib.colormaps[CMAP].with_extremes(bad="#d0d0d0")
        ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for i in range(n_rows):
            for j in range(n_cols):
                dark = np.isfinite(a[i, j]) and a[i, j] > 0.55
                ax.text(j, i, _cell(a[i, j]), ha="center", va="center", color="white" if dark else "black")
                if outline is not None and outline[i][j]:
                    ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False,
                                                              edgecolor="#c0392b", linewidth=2.5))
            if sums is not None:
                ax.text(n_cols - 0.5 + 0.12, i, f"Σ {sums[i]}", ha="left", va="center", color="#444444",
                        fontsize=9, clip_on=False)
        ax.set_xticks(range(n_cols), cols)
        ax.set_yticks(range(n_rows), rows)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, pad=6, loc="left")
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        return _png(fig)


def _cell(x: float) -> str:
    if not np.isfinite(x):
        return str(x)  # nan, inf, -inf: the student should see exactly that
    return f"{x:.{DECIMALS}f}".replace("-0.00", "0.00")


def histogram_png(percentages, *, title: str) -> bytes:
    """How many students scored in each tenth of the total, from 0 to 100 %."""
    counts, edges = np.histogram(np.clip(np.asarray(percentages, dtype=float), 0, 100), bins=10, range=(0, 100))
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(6.4, 2.8), dpi=DPI, layout="constrained")
        ax = fig.add_subplot()
        ax.bar(edges[:-1], counts, width=10, align="edge", color="#2f6fad", edgecolor="white")
        for x, c in zip(edges[:-1], counts):
            if c:
                ax.text(x + 5, c, str(c), ha="center", va="bottom", fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_xticks(edges)
        ax.set_ylim(0, max(1, counts.max()) * 1.15)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("total score (% of the maximum)")
        ax.set_ylabel("students")
        ax.set_title(title, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
        return _png(fig)


def curve_png(values, *, title: str, xlabel: str = "", ylabel: str = "", log: bool = False, every: int = 1) -> bytes:
    """A line of values against their index (a loss per step, say); None or non-finite values are gaps."""
    y = np.array([np.nan if v is None else v for v in values], dtype=float)
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(3.6, 3.0), dpi=DPI, layout="constrained")
        ax = fig.add_subplot()
        ax.plot(np.arange(y.size) * every, y, color="#2f6fad", lw=1.8)
        finite = y[np.isfinite(y)]
        if log and finite.size and finite.min() > 0 and finite.max() > 10 * finite.min():
            ax.set_yscale("log")
        if not finite.size:
            ax.text(0.5, 0.5, "no finite value", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
        return _png(fig)
