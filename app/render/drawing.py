"""Charts as PNG or SVG bytes, drawn with matplotlib's object API (no pyplot, no global
figure state; a lock serialises drawing because matplotlib's text and font caches are shared).

Three charts, each sized for a Slack thumbnail (800 x 450 px PNG at 100 dpi, large type):

* :func:`cumulative_cost`: desktop vs cloud cost over time, with the break-even day marked;
* :func:`break_even_vs_utilization`: break-even days against utilization, one line per
  electricity price;
* :func:`ranked_bars`: a ranked horizontal bar chart (cost per run, or total cost);
* :func:`fleet_plan`: a fleet plan's months (demand, owned capacity, hours served and
  rented) above the cumulative cost of its strategies (taller: 800 x 700 px).

Pure: inputs are numbers and strings, outputs bytes; no web or database imports. A service
may have every drawing run elsewhere (:func:`offload_to`; :mod:`app.render.draw_pool` runs them in
separate processes): the drawing functions take plain keyword arguments and return a
picklable :class:`Chart` for that.
"""

from __future__ import annotations

import io
import math
import textwrap
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, wraps
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Format = Literal["png", "svg"]
MEDIA_TYPES: dict[str, str] = {"png": "image/png", "svg": "image/svg+xml"}
WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.5, 100
DESKTOP, CLOUD = "#1f77b4", "#d62728"
STYLE = {
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "lines.linewidth": 2.5,
    "text.parse_math": False,  # "$2,200 ... $2.14/h" is money, not mathtext
    "svg.fonttype": "none",  # SVG text stays text: searchable, small, and testable
    "svg.hashsalt": "gpucost",  # stable ids: the same chart gives the same bytes
}
_lock = threading.Lock()


@cache
def _mpl() -> SimpleNamespace:
    """matplotlib, imported on the first chart rather than at start-up (it is about a third
    of the app's import time, and most requests draw nothing)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, NullFormatter

    return SimpleNamespace(
        NullFormatter=NullFormatter,
        rc_context=matplotlib.rc_context,
        FigureCanvasAgg=FigureCanvasAgg,
        Figure=Figure,
        Patch=Patch,
        FuncFormatter=FuncFormatter,
    )


def warm() -> None:
    """Import matplotlib now (a drawing process does it when it starts)."""
    _mpl()


# Currencies written with a symbol before the amount; any other is written as its code after.
SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3", "JPY": "\u00a5"}


def money(x: float, currency: str = "USD") -> str:
    """Money for titles, labels and ticks: `$2,200`, `\u20ac2.14`, `$0.00689`, `2,200 CHF`;
    a negative amount as `-$13.37`."""
    a = abs(x)
    if a >= 1000:
        text = f"{a:,.0f}"
    elif a >= 1:
        text = f"{a:,.2f}".rstrip("0").rstrip(".")
    else:
        text = f"{a:.3g}"
    sign = "-" if x < 0 else ""
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {currency}"


def usd(x: float, _pos: int | None = None) -> str:
    """:func:`money` in USD (a tick formatter)."""
    return money(x, "USD")


def _money_ticks(currency: str) -> Any:
    return _mpl().FuncFormatter(lambda x, _pos: money(x, currency))


def _plain_log_ticks(ax: Any, axis: str = "y") -> None:
    """Plain numbers on a log axis (`1,000`, not matplotlib's `10^3` mathtext, which
    ``text.parse_math`` off would print raw), minor ticks unlabelled."""
    which = ax.yaxis if axis == "y" else ax.xaxis
    which.set_major_formatter(_mpl().FuncFormatter(lambda x, _pos: f"{x:,.6g}"))
    which.set_minor_formatter(_mpl().NullFormatter())


def _wrap(title: str, width: int = 64) -> str:
    """A title that fits the figure: each line wrapped at ``width`` characters."""
    return "\n".join(textwrap.fill(line, width) for line in title.splitlines())


@dataclass(frozen=True)
class Chart:
    """A drawn chart: its bytes, media type, and the texts it shows (for captions and tests)."""

    content: bytes
    media_type: str
    title: str
    x_label: str
    y_label: str


Offload = Callable[[Callable[..., "Chart"], dict[str, Any]], "Chart"]
_offload: Offload | None = None
F = TypeVar("F", bound=Callable[..., "Chart"])


def offload_to(runner: Offload | None) -> None:
    """From now on, run every drawing as ``runner(drawing, kwargs)`` (e.g. in a process pool);
    None: draw in the caller's thread (the default)."""
    global _offload
    _offload = runner


def _drawing(fn: F) -> F:
    """A public drawing function: drawn by the runner given to :func:`offload_to`, if any. The
    runner gets this wrapper itself (importable by name, so it pickles); where no runner is
    set, as in a drawing process, the wrapper draws."""

    @wraps(fn)
    def draw(**kwargs: Any) -> Chart:
        if _offload is not None:
            return _offload(draw, kwargs)
        return fn(**kwargs)

    return draw  # type: ignore[return-value]  # same signature as fn (functools.wraps)


def _render(fig: Figure, fmt: Format, title: str, x_label: str, y_label: str) -> Chart:
    buf = io.BytesIO()
    _mpl().FigureCanvasAgg(fig)
    meta = {"Title": title} if fmt == "png" else {"Title": title, "Date": None}
    fig.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
    return Chart(buf.getvalue(), MEDIA_TYPES[fmt], title, x_label, y_label)


def _figure() -> Figure:
    fig: Figure = _mpl().Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, layout="constrained")
    return fig


@_drawing
def cumulative_cost(
    *,
    upfront: float,
    desktop_per_day: float,
    cloud_per_day: float,
    break_even_days: float | None,
    days: float,
    title: str,
    currency: str = "USD",
    fmt: Format = "png",
) -> Chart:
    """Cumulative cost (in ``currency``) against days since purchase: the desktop line starts
    at ``upfront`` and rises by its electricity per day, the cloud line starts at 0; the
    break-even day (if any within ``days``) is marked and labelled."""
    x_label, y_label = "Days since purchase", f"Cumulative cost ({currency})"
    with _lock, _mpl().rc_context(STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        ax.plot(
            [0, days],
            [upfront, upfront + desktop_per_day * days],
            color=DESKTOP,
            label="Buy desktop",
        )
        ax.plot([0, days], [0, cloud_per_day * days], color=CLOUD, label="Rent cloud")
        if break_even_days is not None and break_even_days <= days:
            y = upfront + desktop_per_day * break_even_days
            ax.axvline(break_even_days, color="#555555", linestyle="--", linewidth=1.5)
            ax.plot([break_even_days], [y], "o", color="black", markersize=8)
            ax.annotate(
                f"break-even: {break_even_days:,.0f} days\n({money(y, currency)})",
                (break_even_days, y),
                xytext=(-12, -48) if break_even_days > days * 0.6 else (12, -48),
                textcoords="offset points",
                ha="right" if break_even_days > days * 0.6 else "left",
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9},
            )
        elif break_even_days is None:
            ax.text(0.02, 0.95, "the desktop never pays back", transform=ax.transAxes, va="top")
        ax.set_xlim(0, days)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(_money_ticks(currency))
        ax.set(title=_wrap(title), xlabel=x_label, ylabel=y_label)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left" if break_even_days is not None else "lower right")
        return _render(fig, fmt, title, x_label, y_label)


@_drawing
def break_even_vs_utilization(
    *,
    utilizations: Sequence[float],
    series: Sequence[tuple[str, Sequence[float | None]]],
    title: str,
    fmt: Format = "png",
) -> Chart:
    """Break-even days against utilization (%), one line per ``(label, days)`` series
    (None where the desktop never pays back, drawn as a gap); log-scaled days when they span
    more than two decades."""
    x_label, y_label = "Utilization (% of the day the GPU is busy)", "Break-even (days)"
    pct = [u * 100 for u in utilizations]
    with _lock, _mpl().rc_context(STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        finite = [d for _, ds in series for d in ds if d is not None and math.isfinite(d)]
        for label, ds in series:
            ax.plot(pct, [math.nan if d is None else d for d in ds], label=label)
        if finite and max(finite) / max(min(finite), 1e-9) > 100:
            ax.set_yscale("log")
            _plain_log_ticks(ax)
        ax.set_xlim(0, 100)
        ax.set(title=_wrap(title), xlabel=x_label, ylabel=y_label)
        ax.grid(alpha=0.3, which="both")
        if len(series) > 1:
            ax.legend(title="Electricity")
        if not finite:
            ax.text(0.5, 0.5, "the desktop never pays back", transform=ax.transAxes, ha="center")
        return _render(fig, fmt, title, x_label, y_label)


@_drawing
def ranked_bars(
    *,
    labels: Sequence[str],
    values: Sequence[float],
    kinds: Sequence[str],
    value_label: str,
    title: str,
    currency: str = "USD",
    fmt: Format = "png",
) -> Chart:
    """A ranked horizontal bar chart, best (smallest) at the top, each bar labelled with its
    value (in ``currency``) and each option's label wrapped on two lines; ``kinds``
    ("desktop" / "cloud") colour the bars."""
    x_label, y_label = value_label, "Option (ranked)"
    n = len(labels)
    with _lock, _mpl().rc_context(STYLE):
        fig = _mpl().Figure(
            figsize=(WIDTH_IN, max(HEIGHT_IN, 1.4 + 0.5 * n)), dpi=DPI, layout="constrained"
        )
        ax = fig.add_subplot()
        ys = list(range(n))[::-1]
        colors = [DESKTOP if k == "desktop" else CLOUD for k in kinds]
        bars = ax.barh(ys, values, color=colors)
        ax.bar_label(bars, labels=[money(v, currency) for v in values], padding=3, fontsize=10)
        ax.set_yticks(ys, [_two_lines(s) for s in labels], fontsize=9)
        ax.xaxis.set_major_formatter(_money_ticks(currency))
        ax.set_xlim(0, max(values, default=1) * 1.25 or 1)
        ax.set(xlabel=x_label, ylabel=y_label)
        fig.suptitle(_wrap(title, 80), fontsize=STYLE["axes.titlesize"])
        ax.grid(alpha=0.3, axis="x")
        handles = [
            _mpl().Patch(color=color, label=name)
            for color, name, kind in (
                (DESKTOP, "desktop (buy)", "desktop"),
                (CLOUD, "cloud (rent)", "cloud"),
            )
            if kind in kinds
        ]
        if handles:
            fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))
        return _render(fig, fmt, title, x_label, y_label)


PLAN_COLORS = {"plan": "#2ca02c", "all_cloud": CLOUD, "all_desktop": DESKTOP}
COMMITTED = "#9467bd"  # cloud capacity held under a commitment


@_drawing
def fleet_plan(
    *,
    months: Sequence[str],
    demand: Sequence[float],
    capacity: Sequence[float],
    served: Sequence[float],
    rented: Sequence[float],
    cumulative: Sequence[tuple[str, str, Sequence[float]]],
    title: str,
    committed: Sequence[float] = (),
    currency: str = "USD",
    fmt: Format = "png",
) -> Chart:
    """Two panels over the plan's months: GPU-hours served by owned desktops, by committed
    cloud instances (``committed``, when any) and rented (stacked bars) with demand and the
    capacity held (owned plus committed) as lines; below, the cumulative cost (USD) of each
    ``(key, label, values)`` strategy (``key`` in :data:`PLAN_COLORS`), in ``currency``."""
    x_label, y_label = "Month", "GPU-hours per month"
    x = list(range(len(months)))
    step = max(1, len(months) // 10)
    with _lock, _mpl().rc_context(STYLE):
        fig = _mpl().Figure(figsize=(WIDTH_IN, 7.0), dpi=DPI, layout="constrained")
        top, bottom = fig.subplots(2, 1, sharex=True)
        top.bar(x, served, color=DESKTOP, label="served by owned desktops")
        base = list(served)
        if any(committed):
            top.bar(x, committed, bottom=base, color=COMMITTED, label="served by commitments")
            base = [a + b for a, b in zip(base, committed, strict=True)]
        top.bar(x, rented, bottom=base, color=CLOUD, label="rented")
        held = "owned + committed capacity" if any(committed) else "owned capacity"
        top.step(x, capacity, where="mid", color="#555555", linewidth=1.5, label=held)
        top.step(
            x, demand, where="mid", color="black", linestyle="--", linewidth=1.5, label="demand"
        )
        top.set(ylabel=y_label)
        highest = max([*demand, *capacity, 1.0])
        top.set_ylim(0, highest * 1.4)  # room for the legend above the bars
        top.grid(alpha=0.3, axis="y")
        top.legend(loc="upper left", fontsize=10, ncols=2)
        for key, label, values in cumulative:
            bottom.plot(x, values, color=PLAN_COLORS.get(key, "#7f7f7f"), label=label)
        bottom.yaxis.set_major_formatter(_money_ticks(currency))
        bottom.set(xlabel=x_label, ylabel=f"Cumulative cost ({currency})")
        highest = max([v for _, _, vs in cumulative for v in vs] or [1.0])
        bottom.set_ylim(0, highest * 1.35)
        bottom.grid(alpha=0.3)
        bottom.legend(loc="upper left", fontsize=10)
        bottom.set_xticks(x[::step], [months[i] for i in x[::step]], rotation=45, ha="right")
        fig.suptitle(_wrap(title), fontsize=STYLE["axes.titlesize"])
        return _render(fig, fmt, title, x_label, y_label)


@_drawing
def message(*, title: str, lines: Sequence[str], fmt: Format = "png") -> Chart:
    """A card with no axes: a title and a few lines of text (a question that has no chart)."""
    with _lock, _mpl().rc_context(STYLE):
        fig = _figure()
        fig.suptitle(textwrap.fill(title, 70), fontsize=STYLE["axes.titlesize"])
        body = "\n".join(textwrap.fill(line, 90, subsequent_indent="  ") for line in lines)
        fig.text(0.05, 0.75, body, va="top")
        return _render(fig, fmt, title, "", "")


def _two_lines(label: str, width: int = 34) -> str:
    """An option's label on at most two lines of ``width`` characters (cut with an ellipsis
    only beyond that)."""
    lines = textwrap.wrap(label, width, break_on_hyphens=False) or [""]
    if len(lines) <= 2:
        return "\n".join(lines)
    second = " ".join(lines[1:])
    return lines[0] + "\n" + (second[: width - 1] + "\u2026")
