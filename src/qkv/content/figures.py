"""What an assignment's content gives the engine to show: labelled matrices, curves and page sections.

The content decides what is worth drawing (a worked example's matrix beside the student's, say);
the engine only knows how to draw a labelled matrix and a curve.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Matrix:
    """A labelled matrix drawn as a heatmap, with each value written in its cell."""

    title: str
    values: object  # 2-D numbers
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    caption: str = ""  # HTML-escaped by the page; <code> is not interpreted
    alt: str = ""
    outline: object = None  # optional 2-D booleans: True cells get a red frame
    row_sums: bool = True  # write each row's sum on the right
    xlabel: str = ""
    ylabel: str = ""


@dataclass(frozen=True)
class Curve:
    """A line of values against their index, such as a loss per training step."""

    title: str
    values: tuple  # numbers; None for a value that is missing (not finite, say)
    xlabel: str = ""
    ylabel: str = ""
    log: bool = (
        False  # a logarithmic y axis (when every value is positive and they span a factor of 10)
    )
    every: int = 1  # the values are those of every `every`-th index (the x axis counts indices)
    caption: str = ""
    alt: str = ""


@dataclass(frozen=True)
class Note:
    """Text in place of a figure (why nothing could be drawn)."""

    text: str


@dataclass(frozen=True)
class Section:
    """A section of the feedback page: a heading, an introduction and figures side by side."""

    heading: str
    intro: str
    items: tuple  # Matrix, Curve or Note
