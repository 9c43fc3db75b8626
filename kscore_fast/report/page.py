"""The report's page: one HTML file that needs no network (plotly.js inlined once in its
head, every figure a ``div`` drawn by it), sections of headings, notes, figures and tables.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       margin: 0; background: #f6f7f9; }
header, main { max-width: 1280px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; }
h1 { margin: 0 0 4px; font-size: 24px; }
h2 { margin: 0 0 6px; font-size: 20px; }
h3 { margin: 22px 0 8px; font-size: 16px; color: #333; }
.meta, .summary { color: #555; margin: 0 0 8px; }
nav ol { margin: 6px 0 12px; padding-left: 22px; }
section.result { background: #fff; border: 1px solid #dde1e6; border-radius: 6px;
                 padding: 16px 20px 20px; margin: 16px 0; }
.note { background: #f1f4f8; border-left: 3px solid #8fa3bf; padding: 6px 10px; }
.kscore-plot { margin: 4px 0 10px; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0 10px; }
th, td { border: 1px solid #dde1e6; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f1f4f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""


@dataclass
class Section:
    """One result's part of the page: a title, a summary line, and blocks of HTML."""

    title: str
    summary: str
    blocks: list[str] = field(default_factory=list)

    def heading(self, title: str) -> None:
        self.blocks.append(f"<h3>{html.escape(title)}</h3>")

    def note(self, message: str) -> None:
        self.blocks.append(f'<p class="note">{html.escape(message)}</p>')

    def figure(self, fig: Any, number: int) -> None:
        """``fig`` drawn in a div of its own (``kscore-plot-<number>``)."""
        import plotly.io as pio

        div = pio.to_html(fig, include_plotlyjs=False, full_html=False,
                          div_id=f"kscore-plot-{number}", default_width="100%",
                          config={"displaylogo": False, "responsive": True})  # fmt: skip
        self.blocks.append(f'<div class="kscore-plot">{div}</div>')

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[Any]],
              more: int = 0) -> None:  # fmt: skip
        """A table of ``rows`` (numbers right-aligned); ``more`` rows left out, said so."""
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
        self.blocks.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        if more:
            self.note(f"… and {more} more rows.")


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return f"<td>{'' if value is None else value}</td>"
    if isinstance(value, int | float):
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.4g}"
        return f'<td class="num">{shown}</td>'
    return f"<td>{html.escape(str(value))}</td>"


@dataclass
class Report:
    """The page: ``html_pieces()`` gives its text (``kscore_fast.io.output`` writes it)."""

    sections: list[Section]
    #: what it was made from, said under the title
    meta: str

    def html_pieces(self) -> Iterator[str]:
        from plotly import __version__ as plotly_version
        from plotly.offline import get_plotlyjs

        yield ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
               '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
               f"<title>kscore report</title>\n<style>{_STYLE}</style>\n"
               f"<!-- plotly.js of plotly {html.escape(plotly_version)} (MIT license) -->\n"
               '<script type="text/javascript">')  # fmt: skip
        yield get_plotlyjs()
        yield "</script>\n</head>\n<body>\n<header>\n<h1>kscore report</h1>\n"
        yield f'<p class="meta">{html.escape(self.meta)}</p>\n<nav><ol>'
        for k, s in enumerate(self.sections, 1):
            yield f'<li><a href="#result-{k}">{html.escape(s.title)}</a></li>'
        yield "</ol></nav>\n</header>\n<main>\n"
        for k, s in enumerate(self.sections, 1):
            yield (f'<section class="result" id="result-{k}">\n<h2>{html.escape(s.title)}</h2>\n'
                   f'<p class="summary">{html.escape(s.summary)}</p>\n')  # fmt: skip
            for block in s.blocks:
                yield block + "\n"
            yield "</section>\n"
        yield "</main>\n</body>\n</html>\n"
