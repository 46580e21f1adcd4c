"""Compare systems as a results section does: many systems, many measures.

:func:`compare_systems` evaluates every system on every measure with one
engine call per system (one top-k pass for all the measures), aligns the
systems' queries, tests every system against a baseline (or every pair of
systems) on every measure with a paired test of :mod:`._stats`, corrects
the p-values of each measure for multiple testing, and returns a
:class:`SystemComparison`: the means, the per-query values, raw and
corrected p-values, the mean differences with their intervals, effect sizes
and win/tie/loss counts, printable as a text table and renderable as
Markdown, LaTeX (booktabs), HTML and a pandas frame.

Inputs, one reader per kind (:func:`_read_systems`), so that another reader
(a long table, a frame) slots in as one more branch:

* ``y_true`` a relevance matrix (or class labels, or flat relevance with
  ``qid``) and each system a score matrix (or flat scores): the rows are the
  queries, shared by every system;
* ``y_true`` TREC judgments (a qrels file or its dict) and each system a run
  (a file or its dict), joined with :func:`from_trec`;
* ``y_true=None`` and each system the ``(y_true, y_score, qids)`` triple of
  :func:`from_trec` or :func:`from_id_lists`.

With query ids (the last two), systems that do not cover the same queries
are an error that names the missing queries, unless ``missing_queries``
says to score them 0 (trec_eval's ``-c``) or to drop them.
"""

from __future__ import annotations

import html
import itertools
import os
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._core import engine
from ._core.validation import check_bool, check_option, check_zero_division
from ._io.trec import from_trec, read_trec_qrels

__all__ = ["SystemComparison", "compare_systems"]

#: The corrections: ``"tukey"`` takes the corrected p-values from Tukey's
#: HSD over all the systems; the others adjust each measure's p-values.
CORRECTIONS = ("holm", "bonferroni", "bh", "by", "tukey", None)
MISSING_QUERIES = ("error", "zero", "drop")

_TESTS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "Fisher's randomization test (paired, sign flips)",
    "bootstrap": "paired bootstrap test",
}
_CORRECTIONS = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "bh": "Benjamini-Hochberg correction",
    "by": "Benjamini-Yekutieli correction",
    "tukey": "Tukey HSD over all systems",
    None: "no correction",
}
# More systems than letters: the markers of all pairs become numbers.
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


# ----------------------------------------------------------------------------
# The result
# ----------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SystemComparison:
    """Systems compared on several measures; the result of :func:`compare_systems`.

    Prints as a table of means with significance markers (then, per
    measure, one line per comparison). :meth:`to_markdown`,
    :meth:`to_latex`, :meth:`to_frame` and the notebook's HTML render it.
    ``comparison[measure, a, b]`` is the :class:`PairedTestResult` of ``a``
    against ``b`` (the baseline) on ``measure``. Each parameter is also an
    attribute of the same name.

    Parameters
    ----------
    measures : tuple of str
        The measures, as named.
    systems : tuple of str
        The systems, in the order given.
    baseline : str or None
        The baseline; None when every pair is compared.
    method : {"t", "wilcoxon", "randomization", "bootstrap"}
        The paired test.
    correction : {"holm", "bonferroni", "bh", "by", "tukey"} or None
        How each measure's p-values are corrected.
    alpha : float
        A comparison is significant when its corrected p-value is at most
        ``alpha``.
    confidence_level : float
        Level of the intervals of the mean differences (not corrected).
    qids : tuple
        The query of each row of ``per_query`` (row numbers for a score
        matrix).
    per_query : dict of str -> dict of str -> ndarray of shape (n_queries,)
        ``per_query[measure][system]``: the value of every query, NaN where
        ``zero_division=np.nan`` leaves it out.
    means : dict of str -> dict of str -> float
        ``means[measure][system]``: the mean over the queries where the
        measure is defined.
    tests : dict of (str, str, str) -> PairedTestResult
        ``tests[measure, a, b]``: the test of ``a`` against ``b``, about the
        mean difference ``a - b``, its interval and effect size.
    pvalues_corrected : dict of (str, str, str) -> float
        The corrected p-value of each comparison.
    reject : dict of (str, str, str) -> bool
        Whether ``pvalues_corrected <= alpha``.
    win_tie_loss : dict of (str, str, str) -> tuple of int
        Queries where ``a`` is better than, as good as, worse than ``b`` (for
        a loss, lower is better), over the queries where both are defined.
    greater_is_better : dict of str -> bool
        Whether a higher value of each measure is better.
    filled_queries : dict of str -> tuple
        For each system, the queries it lacked that were scored 0
        (``missing_queries="zero"``).
    dropped_queries : tuple
        Queries left out because some system lacked them
        (``missing_queries="drop"``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import compare_systems
    >>> rng = np.random.RandomState(0)
    >>> y_true = rng.rand(40, 10) < 0.3
    >>> systems = {"noise": rng.rand(40, 10), "good": y_true + rng.rand(40, 10)}
    >>> comparison = compare_systems(
    ...     y_true, systems, measures=["precision@3"], baseline="noise"
    ... )
    >>> round(comparison.means["precision@3"]["good"], 4)
    0.825
    >>> comparison["precision@3", "good", "noise"].pvalue < 1e-6
    True
    >>> comparison.win_tie_loss["precision@3", "good", "noise"]
    (35, 5, 0)
    """

    measures: tuple
    systems: tuple
    baseline: str | None
    method: str
    correction: str | None
    alpha: float
    confidence_level: float
    qids: tuple
    per_query: dict
    means: dict
    tests: dict
    pvalues_corrected: dict
    reject: dict
    win_tie_loss: dict
    greater_is_better: dict
    filled_queries: dict
    dropped_queries: tuple

    def __getitem__(self, key):
        return self.tests[tuple(key)]

    @property
    def pairs(self):
        """The compared pairs ``(a, b)``, in table order (``b`` the baseline)."""
        if self.baseline is not None:
            return [(s, self.baseline) for s in self.systems if s != self.baseline]
        return list(itertools.combinations(self.systems, 2))

    @property
    def pvalues(self):
        """The raw p-value of each comparison, ``(measure, a, b) -> float``."""
        return {key: res.pvalue for key, res in self.tests.items()}

    @property
    def n_queries(self):
        """Queries compared (rows of ``per_query``)."""
        return len(self.qids)

    # -- significance markers ------------------------------------------------

    def _better(self, measure, a, b):
        """Whether ``a`` is significantly better than ``b`` on ``measure``."""
        if (measure, a, b) in self.tests:
            key, sign = (measure, a, b), 1.0
        elif (measure, b, a) in self.tests:
            key, sign = (measure, b, a), -1.0
        else:
            return False
        if not self.reject[key]:
            return False
        diff = sign * self.tests[key].difference
        return diff > 0 if self.greater_is_better[measure] else diff < 0

    def _letter(self, i):
        return _LETTERS[i] if len(self.systems) <= len(_LETTERS) else str(i + 1)

    def _markers(self, measure, system):
        """The markers of a cell: ``+``/``-`` against the baseline, or the
        letters of the systems it is significantly better than."""
        if self.baseline is not None:
            if system == self.baseline:
                return ""
            if self._better(measure, system, self.baseline):
                return "+"
            if self._better(measure, self.baseline, system):
                return "-"
            return ""
        beaten = [
            self._letter(j)
            for j, other in enumerate(self.systems)
            if other != system and self._better(measure, system, other)
        ]
        return ("," if len(self.systems) > len(_LETTERS) else "").join(beaten)

    def _best(self, measure):
        """The systems with the best mean of ``measure`` (all, when tied)."""
        values = self.means[measure]
        finite = [v for v in values.values() if not np.isnan(v)]
        if not finite:
            return set()
        best = max(finite) if self.greater_is_better[measure] else min(finite)
        return {s for s, v in values.items() if v == best}

    def _caption(self, *, latex=False, rich=True):
        test = _TESTS[self.method]
        correction = _CORRECTIONS[self.correction]
        if self.correction not in (None, "tukey"):
            correction += " per measure"
        alpha = f"$\\alpha = {self.alpha:g}$" if latex else f"alpha = {self.alpha:g}"
        defined = {
            int(np.count_nonzero(~np.isnan(v)))
            for per_system in self.per_query.values()
            for v in per_system.values()
        }
        if defined == {self.n_queries}:
            text = f"Mean over {self.n_queries} queries. "
        else:
            counts = "-".join(str(n) for n in sorted({min(defined), max(defined)}))
            text = (
                f"Mean over the {counts} of {self.n_queries} queries where each "
                f"measure is defined (zero_division=nan leaves out the others). "
            )
        text += f"{test[0].upper()}{test[1:]}, {correction}, {alpha}: "
        if self.baseline is not None:
            plus, minus = ("$^{+}$", "$^{-}$") if latex else ("+", "-")
            text += (
                f"{plus} ({minus}) marks a system significantly better (worse) "
                f"than the baseline, {self._escape_name(self.baseline, latex)}."
            )
        else:
            text += (
                f"a {'superscript ' if rich else ''}letter marks a system "
                f"significantly better than the system of that letter."
            )
        if rich:
            text += " Best mean of each measure in bold."
        if self.dropped_queries:
            text += (
                f" {len(self.dropped_queries)} queries not in every system left out."
            )
        filled = sum(len(q) for q in self.filled_queries.values())
        if filled:
            text += f" {filled} missing system-query pairs scored 0."
        return text

    @staticmethod
    def _escape_name(name, latex):
        return _latex_escape(name) if latex else name

    def _cells(self, digits, render):
        """One list of cells per system: its name, then one cell per measure."""
        rows = []
        for i, system in enumerate(self.systems):
            name = system
            if self.baseline is None:
                name = f"({self._letter(i)}) {system}"
            row = [render("name", name, None)]
            for measure in self.measures:
                value = f"{self.means[measure][system]:.{digits}f}"
                bold = system in self._best(measure)
                row.append(
                    render("cell", value, (bold, self._markers(measure, system)))
                )
            rows.append(row)
        return rows

    # -- renderers -----------------------------------------------------------

    def to_string(self, *, digits=4, details=True):
        """The comparison as text.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point of means and differences
            (p-values show 3 significant digits).
        details : bool, default=True
            After the table of means, one line per comparison and measure:
            the mean difference and its interval, the effect size, the raw
            and corrected p-values and the win/tie/loss counts.

        Returns
        -------
        text : str
            The table as text.
        """

        def render(kind, text, extra):
            return text if kind == "name" else (text, extra[1])

        header = ["system", *self.measures]
        rows = self._cells(digits, render)
        # Markers padded to the widest of their column: the decimals align.
        for j in range(1, len(header)):
            width = max(len(row[j][1]) for row in rows)
            for row in rows:
                row[j] = row[j][0] + row[j][1].ljust(width)
        lines = [*textwrap.wrap(self._caption(rich=False), 79), ""]
        lines += _align([header, *rows], left=1)
        if not details:
            return "\n".join(lines)
        level = f"{100 * self.confidence_level:g}% interval"
        header = ["measure", "system", "vs", "diff.", level, "effect"]
        header += ["p", "p adj.", "W/T/L"]
        rows = []
        for measure in self.measures:
            for a, b in self.pairs:
                res = self.tests[measure, a, b]
                low, high = res.confidence_interval
                wins, ties, losses = self.win_tie_loss[measure, a, b]
                rows.append(
                    [
                        measure,
                        a,
                        b,
                        f"{res.difference:+.{digits}f}",
                        f"[{low:+.{digits}f}, {high:+.{digits}f}]",
                        f"{res.effect_size:+.3f}",
                        f"{res.pvalue:.3g}",
                        f"{self.pvalues_corrected[measure, a, b]:.3g}"
                        + ("*" if self.reject[measure, a, b] else ""),
                        f"{wins}/{ties}/{losses}",
                    ]
                )
        effect = "rank-biserial r" if self.method == "wilcoxon" else "Cohen's d_z"
        lines += [
            "",
            f"diff. = system - vs, effect = {effect}, p adj. = corrected p, "
            f"* = significant",
        ]
        lines += _align([header, *rows], left=3)
        return "\n".join(lines)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return self.to_string()

    def to_markdown(self, *, digits=4):
        """The table of means as Markdown (GitHub's pipe tables).

        The best mean of each measure is bold, the markers are
        superscripts (``<sup>``), and the caption follows the table.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Returns
        -------
        text : str
            The table in Markdown.
        """

        def render(kind, text, extra):
            text = text.replace("|", "\\|")
            if kind == "name":
                return text
            bold, markers = extra
            text = f"**{text}**" if bold else text
            return text + (f"<sup>{markers}</sup>" if markers else "")

        header = ["system", *(m.replace("|", "\\|") for m in self.measures)]
        lines = ["| " + " | ".join(header) + " |"]
        lines.append("|:--|" + "--:|" * len(self.measures))
        for row in self._cells(digits, render):
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join([*lines, "", self._caption()])

    def to_latex(self, *, digits=4, label=None):
        """The table of means as a LaTeX ``table`` with booktabs rules.

        Needs ``\\usepackage{booktabs}`` in the preamble. The best mean of
        each measure is in bold, the markers are superscripts, and the
        caption states the test, the correction and alpha.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.
        label : str, default=None
            A ``\\label`` for the table.

        Returns
        -------
        text : str
            The LaTeX source of the table.
        """

        def render(kind, text, extra):
            if kind == "name":
                return _latex_escape(text)
            bold, markers = extra
            text = f"\\textbf{{{text}}}" if bold else text
            return text + (f"$^{{{markers}}}$" if markers else "")

        header = ["System", *(_latex_escape(m) for m in self.measures)]
        lines = [
            "\\begin{table}",
            "\\centering",
            f"\\caption{{{self._caption(latex=True)}}}",
        ]
        if label is not None:
            lines.append(f"\\label{{{label}}}")
        lines += [
            f"\\begin{{tabular}}{{l{'r' * len(self.measures)}}}",
            "\\toprule",
            " & ".join(header) + " \\\\",
            "\\midrule",
            *(" & ".join(row) + " \\\\" for row in self._cells(digits, render)),
            "\\bottomrule",
            "\\end{tabular}",
            "\\end{table}",
        ]
        return "\n".join(lines)

    def _repr_html_(self):
        return self.to_html()

    def to_html(self, *, digits=4):
        """The table of means as an HTML ``<table>`` with its caption.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Returns
        -------
        text : str
            The HTML of the table.
        """

        def render(kind, text, extra):
            text = html.escape(text)
            if kind == "name":
                return f"<th>{text}</th>"
            bold, markers = extra
            text = f"<b>{text}</b>" if bold else text
            text += f"<sup>{html.escape(markers)}</sup>" if markers else ""
            return f'<td style="text-align: right">{text}</td>'

        head = "".join(
            f'<th style="text-align: right">{html.escape(m)}</th>'
            for m in self.measures
        )
        lines = [
            "<table>",
            f"<caption>{html.escape(self._caption())}</caption>",
            f"<thead><tr><th>system</th>{head}</tr></thead>",
            "<tbody>",
            *(f"<tr>{''.join(row)}</tr>" for row in self._cells(digits, render)),
            "</tbody>",
            "</table>",
        ]
        return "\n".join(lines)

    def to_frame(self, kind="tests"):
        """The comparison as a pandas DataFrame (pandas must be installed).

        Parameters
        ----------
        kind : {"tests", "means", "per_query"}, default="tests"
            ``"tests"``: one row per measure and comparison, with columns
            ``measure``, ``system``, ``baseline`` (the other system of the
            pair), ``mean``, ``mean_baseline``, ``difference``, ``low``,
            ``high``, ``effect_size``, ``statistic``, ``pvalue``,
            ``pvalue_corrected``, ``reject``, ``wins``, ``ties``, ``losses``
            and ``n_queries``. ``"means"``: one row per system, one column
            per measure. ``"per_query"``: one row per query (indexed by its
            id), one column per (measure, system).

        Returns
        -------
        frame : pandas.DataFrame
            The table.
        """
        import pandas as pd

        kind = check_option(kind, "kind", ("tests", "means", "per_query"))
        if kind == "means":
            return pd.DataFrame(
                {m: [self.means[m][s] for s in self.systems] for m in self.measures},
                index=pd.Index(self.systems, name="system"),
            )
        if kind == "per_query":
            columns = pd.MultiIndex.from_tuples(
                [(m, s) for m in self.measures for s in self.systems],
                names=["measure", "system"],
            )
            data = np.column_stack(
                [self.per_query[m][s] for m in self.measures for s in self.systems]
            )
            return pd.DataFrame(
                data, index=pd.Index(list(self.qids), name="query"), columns=columns
            )
        rows = []
        for measure in self.measures:
            for a, b in self.pairs:
                key = (measure, a, b)
                res = self.tests[key]
                wins, ties, losses = self.win_tie_loss[key]
                rows.append(
                    {
                        "measure": measure,
                        "system": a,
                        "baseline": b,
                        "mean": res.mean_a,
                        "mean_baseline": res.mean_b,
                        "difference": res.difference,
                        "low": res.confidence_interval.low,
                        "high": res.confidence_interval.high,
                        "effect_size": res.effect_size,
                        "statistic": res.statistic,
                        "pvalue": res.pvalue,
                        "pvalue_corrected": self.pvalues_corrected[key],
                        "reject": self.reject[key],
                        "wins": wins,
                        "ties": ties,
                        "losses": losses,
                        "n_queries": res.n_samples,
                    }
                )
        return pd.DataFrame(rows)


def _align(rows, *, left):
    """Text rows with padded columns: the first ``left`` left-aligned."""
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(w) if j < left else c.rjust(w)
            for j, (c, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]


def _latex_escape(text):
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


# ----------------------------------------------------------------------------
# Reading the systems
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _System:
    """One system read: its queries and every measure's per-query values."""

    qids: tuple
    values: dict


def _is_trec_source(x):
    """A qrels or run: a file name, a path, a file object or a dict of dicts."""
    return isinstance(x, (str, os.PathLike, Mapping)) or hasattr(x, "read")


def _is_triple(x):
    return isinstance(x, tuple) and len(x) == 3


def _per_query(requests, measures, y_true, y_score, options, zero_division):
    """Every measure's per-query values of one system, from one engine call
    (the intent-aware measures: one call of their functions each)."""
    from ._scorer import row_values

    rows = row_values(requests, y_true, y_score, **options)
    return engine.with_undefined(rows, requests, zero_division, keys=list(measures))


def _query_ids(qid, n_rows):
    """Query ids in the order of the engine's rows."""
    if qid is None:
        return tuple(range(n_rows))
    seen = {}
    for q in np.asarray(qid).ravel().tolist():
        seen.setdefault(q, None)
    return tuple(seen)


def _read_systems(y_true, systems, requests, measures, options, zero_division):
    """Each system's query ids and per-query values, by the kind of input."""
    read = {}
    if y_true is None:
        for name, system in systems.items():
            if not _is_triple(system):
                raise TypeError(
                    f"With y_true=None each system must be the (y_true, y_score, "
                    f"qids) triple of from_trec or from_id_lists; system "
                    f"{name!r} is a {type(system).__name__}."
                )
            rel, score, qids = system
            values = _per_query(requests, measures, rel, score, options, zero_division)
            qids = tuple(qids)
            _check_qids(qids, values, name)
            read[name] = _System(qids, values)
        return read
    if _is_trec_source(y_true):
        if options.get("qid") is not None or options.get("labels") is not None:
            raise ValueError(
                "qid and labels do not apply to TREC judgments and runs: the "
                "queries and documents come from the files."
            )
        qrels = y_true if isinstance(y_true, Mapping) else read_trec_qrels(y_true)
        for name, run in systems.items():
            if not _is_trec_source(run):
                raise TypeError(
                    f"y_true is TREC judgments, so each system must be a run (a "
                    f"file name, path, file object or dict qid -> docno -> "
                    f"score); system {name!r} is a {type(run).__name__}."
                )
            rel, score, qids = from_trec(qrels, run)
            values = _per_query(requests, measures, rel, score, options, zero_division)
            read[name] = _System(tuple(qids), values)
        return read
    for name, score in systems.items():
        if _is_triple(score) or _is_trec_source(score):
            raise TypeError(
                f"y_true is a relevance array, so each system must be a score "
                f"array; system {name!r} is a {type(score).__name__}. Pass "
                f"y_true=None for from_trec triples, or the qrels as y_true for "
                f"TREC runs."
            )
        values = _per_query(requests, measures, y_true, score, options, zero_division)
        n_rows = next(iter(values.values())).shape[0]
        read[name] = _System(_query_ids(options.get("qid"), n_rows), values)
    return read


def _check_qids(qids, values, name):
    n_rows = next(iter(values.values())).shape[0]
    if len(qids) != n_rows:
        raise ValueError(
            f"System {name!r} has {len(qids)} query ids for {n_rows} rows."
        )
    if len(set(qids)) != len(qids):
        raise ValueError(f"System {name!r} has duplicate query ids.")


def _show(qids, limit=10):
    shown = ", ".join(repr(q) for q in qids[:limit])
    more = f" and {len(qids) - limit} more" if len(qids) > limit else ""
    return shown + more


def _align_queries(read, missing_queries):
    """(qids, values measure -> system -> array, filled, dropped)."""
    union = {}
    for system in read.values():
        for q in system.qids:
            union.setdefault(q, None)
    union = tuple(union)
    missing = {
        name: tuple(q for q in union if q not in set(system.qids))
        for name, system in read.items()
    }
    lacking = {name: q for name, q in missing.items() if q}
    if lacking and missing_queries == "error":
        parts = [
            f"system {name!r} lacks {len(q)} of the {len(union)} queries: {_show(q)}"
            for name, q in lacking.items()
        ]
        raise ValueError(
            "The systems do not cover the same queries: "
            + "; ".join(parts)
            + ". Choose missing_queries='zero' to score a missing query 0 on "
            "every measure (as trec_eval -c), or missing_queries='drop' to "
            "compare only the queries every system has."
        )
    if missing_queries == "drop":
        dropped = set().union(*map(set, lacking.values())) if lacking else set()
        qids = tuple(q for q in union if q not in dropped)
        if len(qids) < 2:
            raise ValueError(
                f"Only {len(qids)} queries are common to every system; at least "
                f"2 are needed to compare them."
            )
        filled = {}
        dropped = tuple(q for q in union if q in dropped)
    else:
        qids, filled, dropped = union, {n: q for n, q in lacking.items()}, ()
    values = {}
    for name, system in read.items():
        position = {q: i for i, q in enumerate(system.qids)}
        at = np.array([position.get(q, -1) for q in qids], dtype=np.intp)
        for measure, v in system.values.items():
            aligned = np.where(at >= 0, v[np.maximum(at, 0)], 0.0)
            values.setdefault(measure, {})[name] = aligned
    return qids, values, filled, dropped


# ----------------------------------------------------------------------------
# compare_systems
# ----------------------------------------------------------------------------


def _check_systems(systems, baseline):
    if not isinstance(systems, Mapping):
        raise TypeError(
            f"systems must be a dict of system name -> scores (or run); got "
            f"{type(systems).__name__}."
        )
    if len(systems) < 2:
        raise ValueError(
            f"compare_systems needs at least 2 systems; got {len(systems)}."
        )
    names = [str(name) for name in systems]
    if len(set(names)) != len(names):
        raise ValueError(f"System names must be distinct as strings; got {names}.")
    if baseline is not None and baseline not in systems:
        raise ValueError(
            f"baseline={baseline!r} is not one of the systems: "
            f"{', '.join(repr(s) for s in systems)}."
        )


def _check_measures(measures):
    if isinstance(measures, str):
        measures = [measures]
    try:
        measures = list(measures)
    except TypeError:
        raise TypeError(
            f"measures must be a list of measure names such as 'map@100'; got "
            f"{measures!r}."
        ) from None
    if not measures:
        raise ValueError("measures is empty: name at least one measure.")
    if len(set(measures)) != len(measures):
        raise ValueError(f"Duplicate names in measures={measures}.")
    return tuple(measures)


def _win_tie_loss(a, b, greater_is_better):
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    better, worse = (a > b, a < b) if greater_is_better else (a < b, a > b)
    wins, losses = int(np.count_nonzero(better)), int(np.count_nonzero(worse))
    return wins, int(a.shape[0]) - wins - losses, losses


def _tukey_pvalues(values, systems):
    """Tukey HSD p-values of every pair, over the queries defined for all."""
    from scipy import stats

    stacked = np.column_stack([values[s] for s in systems])
    stacked = stacked[~np.isnan(stacked).any(axis=1)]
    pvalues = stats.tukey_hsd(*stacked.T).pvalue
    index = {s: i for i, s in enumerate(systems)}
    return lambda a, b: float(pvalues[index[a], index[b]])


def compare_systems(
    y_true,
    systems,
    *,
    measures,
    baseline=None,
    method="t",
    correction="holm",
    alpha=0.05,
    confidence_level=0.95,
    n_resamples=9999,
    missing_queries="error",
    random_state=None,
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
    **metric_params,
):
    """Compare systems on several measures, as a paper's results table does.

    Every system is evaluated on every measure by one pass of the top-k
    kernel; each system is then tested against the ``baseline`` (or, without
    one, every pair of systems) on each measure with a paired test over the
    queries, and each measure's p-values are corrected for multiple testing.

    Parameters
    ----------
    y_true : array-like, sparse matrix, str, path-like, file object, dict or None
        The relevance, shared by every system, in one of three forms:

        * a relevance matrix of shape (n_queries, n_items) (or 1-D class
          labels with ``labels``, or flat relevance with ``qid``), as the
          metric functions take it; each system is then a score array of
          the same shape;
        * TREC judgments: a qrels file or its dict ``{qid: {docno:
          grade}}``; each system is then a run file or its dict ``{qid:
          {docno: score}}``, read with :func:`from_trec`;
        * None: each system is the ``(y_true, y_score, qids)`` triple that
          :func:`from_trec` and :func:`from_id_lists` return.
    systems : dict of str -> array-like, run or triple
        The systems, by name (at least two), in table order.
    measures : list of str
        Measure names, as :func:`get_scorer` spells them for one metric
        (``"ndcg@10"``, ``"map@100"``, ``"r_precision"``); a loss such as
        ``"fall_out@10"`` is named without ``neg_``, and lower is better.
    baseline : str, default=None
        The system every other one is compared with; None compares every
        pair of systems.
    method : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
        The paired test of the per-query differences (see
        :func:`paired_test`): Student's paired t-test, the Wilcoxon
        signed-rank test, Fisher's randomization test (sign flips, exact
        when ``2**n_queries <= n_resamples``) or the paired bootstrap test.
        Every test is two-sided.
    correction : {"holm", "bonferroni", "bh", "by", "tukey"} or None, \
default="holm"
        How the p-values of each measure are corrected (the family is one
        measure's comparisons): Holm's step-down and Bonferroni control the
        family-wise error rate, Benjamini-Hochberg (``"bh"``) and
        Benjamini-Yekutieli (``"by"``) the false discovery rate; ``"tukey"``
        takes the corrected p-values from Tukey's HSD
        (:func:`scipy.stats.tukey_hsd`) over all the systems' per-query
        values (one-way, the queries as independent samples, as ranx does;
        the family is every pair even with a baseline); None leaves them.
    alpha : float, default=0.05
        A comparison is significant when its corrected p-value is at most
        ``alpha``.
    confidence_level : float, default=0.95
        Level of the interval of each mean difference (Student t for
        ``"t"``, percentile bootstrap otherwise).
    n_resamples : int, default=9999
        Resamples of the randomization and bootstrap tests and of the
        bootstrap intervals.
    missing_queries : {"error", "zero", "drop"}, default="error"
        What to do when the systems do not cover the same queries (only
        possible with query ids: runs or triples). ``"error"``: a
        ValueError naming the missing queries. ``"zero"``: a system scores 0
        on every measure of a query it lacks, as trec_eval's ``-c`` (on the
        queries some system has; read runs with ``from_trec(...,
        complete=True)`` to include every judged query). ``"drop"``: only
        the queries every system has are compared. The result records which
        queries were filled or dropped, and the caption says how many.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomization and bootstrap tests and intervals, for
        reproducible results.
    ignore_ties : bool, default=False
        Break ties in the scores as scikit-learn does (the later column
        first) instead of averaging over them.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of the queries where a measure is undefined (no relevant
        item); ``np.nan`` leaves them out of the means and the tests.
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D class labels ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with flat relevance ``y_true`` and flat
        scores (learning-to-rank data); the ids name the queries.
    **metric_params
        Parameters of the measures (``denominator``, ``gain``, ``p``, ...),
        each passed to the measures it applies to, as in
        :func:`get_scorer`.

    Returns
    -------
    comparison : SystemComparison
        Prints as a table; ``comparison[measure, a, b]`` is a
        :class:`PairedTestResult`; :meth:`~SystemComparison.to_latex`,
        :meth:`~SystemComparison.to_markdown` and
        :meth:`~SystemComparison.to_frame` render it.

    See Also
    --------
    compare_models : Every pair of models on one metric.
    paired_test : One pair on one metric.
    PerQueryDifferenceDisplay : The per-query differences as bars.

    Notes
    -----
    Agreement with ranx's ``compare``: the means, the paired t-test
    p-values (``stat_test="student"``) and the win/tie/loss counts are the
    same on runs without tied scores and with the same query set (ranx
    breaks ties by its own order; this package averages them, see
    ``ignore_ties``). ranx corrects nothing: use ``correction=None`` to
    compare its p-values. Its Tukey HSD p-values are those of
    ``correction="tukey"``. Its Fisher randomization test permutes with
    numba's random numbers and counts no +1, so its p-values agree only
    within Monte Carlo error. ranx marks a system with the letters of the
    systems it beats with ``p <= max_p`` whatever the direction of the
    difference; here a letter means significantly better.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import compare_systems
    >>> rng = np.random.RandomState(0)
    >>> y_true = rng.rand(50, 20) < 0.25
    >>> systems = {
    ...     "bm25": y_true + rng.normal(scale=1.5, size=(50, 20)),
    ...     "rerank": y_true + rng.normal(scale=0.8, size=(50, 20)),
    ...     "noise": rng.normal(size=(50, 20)),
    ... }
    >>> comparison = compare_systems(
    ...     y_true, systems, measures=["ndcg@10", "precision@5"], baseline="bm25",
    ... )
    >>> print(comparison.to_string(details=False))
    Mean over 50 queries. Paired t-test, Holm correction per measure, alpha = 0.05:
    + (-) marks a system significantly better (worse) than the baseline, bm25.
    <BLANKLINE>
    system  ndcg@10  precision@5
    bm25    0.5944       0.4320
    rerank  0.7423+      0.5600+
    noise   0.3786-      0.2560-

    The LaTeX of the same table, for a paper (booktabs):

    >>> print(comparison.to_latex())  # doctest: +ELLIPSIS
    \\begin{table}
    \\centering
    \\caption{Mean over 50 queries. Paired t-test, Holm correction per measure, ...}
    \\begin{tabular}{lrr}
    \\toprule
    System & ndcg@10 & precision@5 \\\\
    \\midrule
    bm25 & 0.5944 & 0.4320 \\\\
    rerank & \\textbf{0.7423}$^{+}$ & \\textbf{0.5600}$^{+}$ \\\\
    noise & 0.3786$^{-}$ & 0.2560$^{-}$ \\\\
    \\bottomrule
    \\end{tabular}
    \\end{table}
    """
    # scipy is imported when a comparison is first made.
    from ._scorer import requests_for_names as scorer_requests
    from ._stats import (
        adjust_pvalues,
        check_row_mean,
        check_test_options,
        paired_values,
        random_generator,
    )

    _check_systems(systems, baseline)
    measures = _check_measures(measures)
    method, confidence_level, n_resamples, alpha = check_test_options(
        method, confidence_level, n_resamples, alpha
    )
    correction = check_option(correction, "correction", CORRECTIONS)
    missing_queries = check_option(missing_queries, "missing_queries", MISSING_QUERIES)
    zero_division = check_zero_division(zero_division)
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    requests = scorer_requests(measures, metric_params)
    for measure, request in zip(measures, requests):
        check_row_mean(request.metric, measure)
    options = {
        "ignore_ties": ignore_ties,
        "relevance_threshold": relevance_threshold,
        "labels": labels,
        "qid": qid,
    }
    read = _read_systems(y_true, systems, requests, measures, options, zero_division)
    qids, values, filled, dropped = _align_queries(read, missing_queries)
    names = tuple(systems)
    if baseline is not None:
        pairs = [(s, baseline) for s in names if s != baseline]
    else:
        pairs = list(itertools.combinations(names, 2))
    greater = {m: r.metric.greater_is_better for m, r in zip(measures, requests)}
    rng = random_generator(random_state)
    tests, corrected, wtl = {}, {}, {}
    for measure in measures:
        keys = [(measure, a, b) for a, b in pairs]
        for key in keys:
            _, a, b = key
            tests[key] = paired_values(
                values[measure][a],
                values[measure][b],
                label=measure,
                method=method,
                alternative="two-sided",
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                rng=rng,
            )
            wtl[key] = _win_tie_loss(
                values[measure][a], values[measure][b], greater[measure]
            )
        if correction == "tukey":
            tukey = _tukey_pvalues(values[measure], names)
            adjusted = [tukey(a, b) for _, a, b in keys]
        else:
            adjusted = adjust_pvalues([tests[k].pvalue for k in keys], correction)
        corrected.update({k: float(p) for k, p in zip(keys, adjusted)})
    means = {m: {s: float(np.nanmean(values[m][s])) for s in names} for m in measures}
    return SystemComparison(
        measures=measures,
        systems=names,
        baseline=baseline,
        method=method,
        correction=correction,
        alpha=alpha,
        confidence_level=confidence_level,
        qids=qids,
        per_query=values,
        means=means,
        tests=tests,
        pvalues_corrected=corrected,
        reject={k: bool(p <= alpha) for k, p in corrected.items()},
        win_tie_loss=wtl,
        greater_is_better=greater,
        filled_queries=filled,
        dropped_queries=dropped,
    )
