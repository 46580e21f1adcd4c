"""A plain-Python reference implementation of trec_eval's ``all_trec`` measures.

Written from trec_eval's C sources (usnistgov/trec_eval, version 10.0, commit
f4253652c8efd0d86ddffd0d163cc0a0f813111a), one function per measure, each
citing the ``m_*.c`` file it follows. It is test-side ground truth: it does
not import ``sklearn_rankk`` and needs nothing beyond the standard library.
``trec_eval_lines`` writes trec_eval's output (``-q`` per-query lines, then the
``all`` lines) and reproduces ``tests/data/trec_eval/out.test.aq`` and
``out.test.aql`` byte for byte.

How trec_eval sees one query (``form_res_rels.c``)
--------------------------------------------------
* Ranking: the results are sorted by score descending (``atof`` of the score
  column, compared as C doubles), ties broken by docno descending (``strcmp``
  of the bytes); the rank column is ignored. ``-M n`` keeps the first ``n``
  documents of that order. Duplicate docnos (in the kept documents, or in a
  query's qrels) are fatal errors.
* Each ranked document gets a relevance value: its qrels grade if judged with
  a grade >= 0; ``RELVALUE_UNJUDGED = -2`` if it is in the qrels with a
  *negative* grade ("in the pool but unjudged", the infAP convention: **a
  negative grade is not a judged non-relevant document**); ``RELVALUE_NONPOOL
  = -1`` if its docno is not in the query's qrels at all.
* ``rel_levels[g]`` counts the qrels entries with grade ``g >= 0``, retrieved
  or not; ``num_rel_levels`` is one more than the largest such grade.
  ``num_rel`` is the number of qrels entries with grade >= the relevance level
  (``-l``, default 1), retrieved or not: relevant documents the run misses
  count in ``num_rel`` and sit at no rank. ``num_rel_ret`` counts ranked
  documents whose value is >= the relevance level.
* ``-J`` (judged documents only) removes every ranked document whose value is
  negative (not in the qrels, or with a negative grade) after ``-M``,
  keeping the order of the others.
* The binary measures call a document relevant iff its value is >= the
  relevance level. The gain measures (``ndcg``, ``ndcg_cut``, ``ndcg_rel``,
  ``Rndcg``, ``G``, ``rbp``) use the grade itself as the gain and ignore
  ``-l`` (only ``Rndcg`` looks at ``num_rel``, to return 0 when it is 0).

Queries and averages (``trec_eval.c``, ``meas_acc.c``, ``meas_avg.c``)
---------------------------------------------------------------------
* Queries are evaluated in ``strcmp`` order of the qrels qids. A run query
  without qrels is ignored. A qrels query without results is a fatal error
  in trec_eval 10.0 ("result qid 'X' not found in qrels", exit 4; versions up
  to 9.0.8 and pytrec_eval skip it) unless ``-c`` is given, in which case it
  is evaluated on a bogus one-document ranking ("ceci_nest_pas_un_docno"),
  after which ``num_ret``, ``utility``, ``relstring``, ``unj*`` and
  ``rbp_resid`` are reset to 0 (empty string for relstring) when the stored
  value's name is exactly that (so not when the measure has parameters).
* The ``all`` value of an averaged measure is the sum of the per-query values
  (accumulated in query order) divided by the number of queries (the number
  of qrels queries with ``-c``, which is the same number in 10.0).
* ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``: the
  ``all`` value is the sum, not the mean. With ``-c``, ``num_rel``'s ``all``
  value is recounted from the qrels as the entries with grade > 0 (not >=
  ``-l``) over all qrels queries.
* ``gm_map`` and ``gm_bpref`` store ``log(max(x, MIN_GEO_MEAN))`` per query
  with ``MIN_GEO_MEAN = 0.00001``; the ``all`` value is
  ``exp(sum_of_logs / num_queries)``. They print no per-query line.
* ``runid`` (the run tag of the results file's last line) and ``num_q`` print
  only on ``all`` lines; ``relstring`` prints only per query.

Output format (``meas_print_single.c``, ``meas_print_final.c``)
----------------------------------------------------------------
``"%-22s\\t%s\\t%6.4f"`` (name left-justified in 22 columns, tab, qid or
``all``, tab, value) for double measures; ``%ld`` of the value cast to long
for the ``num_*`` counts; ``%s`` for runid; ``'%s'`` (in single quotes) for
relstring. Measures print in the order of ``te_trec_measures`` in
``measures.c`` (:data:`MEASURE_ORDER`), not in the order of the ``all_trec``
nickname list. Cut-off measures are named ``name_%ld`` (long cut-offs) or
``name_%3.2f`` (double cut-offs); a measure given parameters on the command
line with ``-m name.params`` is named ``name_params`` (the parameter text
verbatim), e.g. ``relstring_20``. A NaN (reachable only in corner cases:
``iprec_at_recall`` with nothing ranked after ``-J``, ``Rndcg`` with ``-l0``)
prints as Python's ``nan`` where glibc may print ``-nan``.

Known C-level quirks not reproduced (they need inputs trec_eval cannot read
sensibly): a query whose judgments are all negative makes trec_eval reuse the
previous query's ``num_rel_levels`` (static state in ``form_res_rels.c``);
``rbp`` reads its ``min``/``max`` before initialising them (see :func:`rbp`).
"""

from __future__ import annotations

import functools
import math
import re
import struct
from dataclasses import dataclass, field

RELVALUE_NONPOOL = -1
"""Relevance value of a ranked document whose docno is not in the qrels."""
RELVALUE_UNJUDGED = -2
"""Relevance value of a ranked document in the qrels with a negative grade."""
MIN_GEO_MEAN = 0.00001
"""Floor of the per-query values whose logs ``gm_map``/``gm_bpref`` average."""
INFAP_EPSILON = 0.00001
"""Smoothing constant of infAP."""

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""Default cut-offs of P, recall, ndcg_cut, map_cut, relative_P."""
DEFAULT_SUCCESS_CUTOFFS = (1, 5, 10)
DEFAULT_UNJ_CUTOFFS = (5, 10, 20)
DEFAULT_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""Default recall levels of iprec_at_recall and 11pt_avg."""
DEFAULT_RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
DEFAULT_UTILITY_PARAMS = (1.0, -1.0, 0.0, 0.0)
DEFAULT_RELSTRING_LEN = 10
DEFAULT_SET_F_BETA = 1.0
DEFAULT_RBP_P = 0.9

# ---------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------

_INT_PREFIX = re.compile(r"\s*([+-]?\d+)")
_FLOAT_PREFIX = re.compile(
    r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?"
    r"|inf(?:inity)?|nan))",
    re.IGNORECASE,
)


def atol(text):
    """C's ``atol``: the leading integer of ``text``, 0 if there is none."""
    m = _INT_PREFIX.match(text)
    return int(m.group(1)) if m else 0


def atof(text):
    """C's ``atof``: the leading decimal number of ``text``, 0.0 if none."""
    m = _FLOAT_PREFIX.match(text)
    return float(m.group(1)) if m else 0.0


def read_qrels(path):
    """Read a qrels file (``get_qrels.c``): ``qid iter docno rel`` per line.

    Returns ``{qid: {docno: grade}}`` with ``grade = atol(rel)``. Lines whose
    first character is ``#`` are comments; every other line must have exactly
    four whitespace-separated fields (trec_eval rejects blank lines in qrels).
    A docno judged twice for a query is an error, as in ``form_res_rels.c``.
    """
    qrels = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 4:
                raise ValueError(f"{path}: malformed qrels line {lineno}")
            qid, _, docno, rel = fields
            judged = qrels.setdefault(qid, {})
            if docno in judged:
                raise ValueError(f"duplicate docs {docno}")
            judged[docno] = atol(rel)
    return qrels


def read_results(path):
    """Read a results file (``get_trec_results.c``).

    Each line is ``qid iter docno rank score run_id [ignored...]``; blank lines
    and lines whose first non-blank character is ``#`` are skipped. Returns
    ``(run, run_id)`` where ``run`` is ``{qid: [(docno, score), ...]}`` (file
    order, ``score = atof(score)``) and ``run_id`` is the tag of the last line
    (trec_eval keeps only that one).
    """
    run = {}
    run_id = None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            fields = stripped.split()
            if len(fields) < 6:
                raise ValueError(f"{path}: malformed results line {lineno}")
            qid, _, docno, _, score, run_id = fields[:6]
            run.setdefault(qid, []).append((docno, atof(score)))
    return run, run_id


def _docno_key(docno):
    # strcmp compares bytes as unsigned chars.
    return docno.encode("utf-8")


def rank_documents(scored_docs, max_docs=None):
    """Rank ``[(docno, score), ...]`` in trec_eval's order; return docnos.

    Score descending, ties by docno descending (``comp_sim_docno`` in
    ``form_res_rels.c``); then only the first ``max_docs`` (``-M``) are kept.

    >>> rank_documents([("a", 1.0), ("c", 2.0), ("b", 2.0), ("d", 0.5)])
    ['c', 'b', 'a', 'd']
    """
    ranked = sorted(scored_docs, key=lambda ds: (-ds[1], _Reversed(_docno_key(ds[0]))))
    docnos = [d for d, _ in ranked]
    if max_docs is not None and len(docnos) > max_docs:
        docnos = docnos[:max_docs]
    if len(set(docnos)) != len(docnos):
        raise ValueError("duplicate docs in a query's results")
    return docnos


@functools.total_ordering
class _Reversed:
    """Sort key wrapper that reverses the order of its value."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return self.value == other.value

    def __lt__(self, other):
        return self.value > other.value


# ---------------------------------------------------------------------------
# The merged ranking/judgments of one query (RES_RELS of trec_format.h)
# ---------------------------------------------------------------------------


@dataclass
class ResRels:
    """trec_eval's ``RES_RELS``: what every measure reads of one query."""

    rel_list: list
    """Relevance value of each ranked document, best first (-1, -2 or grade)."""
    num_ret: int
    num_rel: int
    num_rel_ret: int
    num_nonpool: int
    num_unjudged_in_pool: int
    rel_levels: list = field(default_factory=list)
    """``rel_levels[g]``: number of qrels entries with grade ``g >= 0``."""
    num_rel_levels: int = 0


def res_rels(ranking, qrels, relevance_level=1, judged_docs_only=False):
    """Merge a ranking with a query's judgments (``te_form_res_rels``).

    ``ranking`` is the list of docnos in trec_eval's order (see
    :func:`rank_documents`), ``qrels`` the query's ``{docno: grade}``.
    ``judged_docs_only`` is trec_eval's ``-J``.
    """
    rel_list = []
    for docno in ranking:
        grade = qrels.get(docno)
        if grade is None:
            rel_list.append(RELVALUE_NONPOOL)
        elif grade < 0:
            rel_list.append(RELVALUE_UNJUDGED)
        else:
            rel_list.append(grade)
    if judged_docs_only:
        rel_list = [r for r in rel_list if r >= 0]
    max_rel = max(qrels.values())
    rel_levels = [0] * (max(max_rel, -1) + 1)
    for grade in qrels.values():
        if grade >= 0:
            rel_levels[grade] += 1
    num_rel_levels = 0
    num_rel = 0
    for g, count in enumerate(rel_levels):
        if count:
            num_rel_levels = g + 1
            if g >= relevance_level:
                num_rel += count
    return ResRels(
        rel_list=rel_list,
        num_ret=len(rel_list),
        num_rel=num_rel,
        num_rel_ret=sum(1 for r in rel_list if r >= 0 and r >= relevance_level),
        num_nonpool=rel_list.count(RELVALUE_NONPOOL),
        num_unjudged_in_pool=rel_list.count(RELVALUE_UNJUDGED),
        rel_levels=rel_levels,
        num_rel_levels=num_rel_levels,
    )


def _rr(ranking, qrels, relevance_level):
    if isinstance(ranking, ResRels):
        return ranking
    return res_rels(ranking, qrels, relevance_level)


def _lround(x):
    """C's ``lround``: round half away from zero."""
    f = math.floor(abs(x))
    r = f + 1 if abs(x) - f >= 0.5 else f
    return int(r if x >= 0 else -r)


# ---------------------------------------------------------------------------
# Gains (gain_init.c)
# ---------------------------------------------------------------------------


@dataclass
class _RelGain:
    rel_level: int
    gain: float
    num_at_level: int


def _valid_int(text):
    if text[:1] in "+-" and text:
        text = text[1:]
    return text.isdigit() and text.isascii()


def setup_gains(rr, gain_pairs=()):
    """Gain table of ``setup_gains`` (``gain_init.c``).

    ``gain_pairs`` are the ``name=value`` parameters of the measure (e.g.
    ``-m ndcg.1=3.5,2=9``); names that are not integers (``p`` of rbp) are
    skipped. Every grade ``0 .. num_rel_levels-1`` not named keeps gain =
    grade. The table is sorted by increasing gain with trec_eval's comparator
    ``(int)(gain1 - gain2)`` (so gains less than 1 apart compare equal; the
    sort here is stable, as glibc's merge sort; with the default gains all
    gains are distinct integers and the order is unambiguous).
    """
    gains = [
        _RelGain(atol(name), float(value), 0)
        for name, value in gain_pairs
        if _valid_int(name)
    ]
    for level in range(rr.num_rel_levels):
        for g in gains:
            if g.rel_level == level:
                g.num_at_level = rr.rel_levels[level]
                break
        else:
            gains.append(_RelGain(level, float(level), rr.rel_levels[level]))
    gains.sort(key=functools.cmp_to_key(lambda a, b: int(a.gain - b.gain)))
    return gains


def _get_gain(rel, gains):
    for g in gains:
        if g.rel_level == rel:
            return g.gain
    return 0.0


class _Ideal:
    """The ideal ranking's gains as trec_eval walks them (``m_ndcg.c``).

    Starts at the highest gain level; each ``step()`` moves one document down
    and returns the ideal gain at that rank (0.0 once exhausted).
    """

    def __init__(self, gains):
        self.gains = gains
        self.cur_level = len(gains) - 1
        self.gain = gains[self.cur_level].gain if self.cur_level >= 0 else 0.0
        self.num_at_level = 0

    def step(self):
        self.num_at_level += 1
        while (
            self.cur_level >= 0
            and self.num_at_level > self.gains[self.cur_level].num_at_level
        ):
            self.num_at_level = 1
            self.cur_level -= 1
            self.gain = self.gains[self.cur_level].gain if self.cur_level >= 0 else 0.0
        return self.gain


# ---------------------------------------------------------------------------
# Measures. Every function takes (ranking, qrels, relevance_level, params...)
# where ranking is the query's docnos in trec_eval's order (or a ResRels) and
# qrels is the query's {docno: grade}. Cut-off measures return one value per
# cut-off, in the order of the cut-offs given.
# ---------------------------------------------------------------------------


def num_ret(ranking, qrels, relevance_level=1):
    """Number of ranked documents (``m_num_ret.c``), after ``-M``/``-J``.

    ``all``: the sum over queries. Printed ``%ld``.
    """
    return _rr(ranking, qrels, relevance_level).num_ret


def num_rel(ranking, qrels, relevance_level=1):
    """Number of qrels entries with grade >= ``relevance_level`` (``m_num_rel.c``).

    Retrieved or not. ``all``: the sum over queries; with ``-c``, the number
    of qrels entries with grade > 0 over all qrels queries. Printed ``%ld``.
    """
    return _rr(ranking, qrels, relevance_level).num_rel


def num_rel_ret(ranking, qrels, relevance_level=1):
    """Number of ranked documents with grade >= ``relevance_level``.

    ``m_num_rel_ret.c``. ``all``: the sum. Printed ``%ld``.
    """
    return _rr(ranking, qrels, relevance_level).num_rel_ret


def num_nonrel_judged_ret(ranking, qrels, relevance_level=1):
    """Ranked documents judged with a grade in ``[0, relevance_level)``.

    ``m_num_nonrel_judged_ret.c``: ``num_ret - num_nonpool -
    num_unjudged_in_pool - num_rel_ret`` (negative grades are not counted).
    ``all``: the sum. Printed ``%ld``.
    """
    rr = _rr(ranking, qrels, relevance_level)
    return rr.num_ret - rr.num_nonpool - rr.num_unjudged_in_pool - rr.num_rel_ret


def _ap_sum(rr, relevance_level):
    rel_so_far = 0
    total = 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel >= relevance_level:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total, rel_so_far


def map_(ranking, qrels, relevance_level=1):
    """Average precision, trec_eval's ``map`` (``m_map.c``).

    ``sum over relevant ranks r of (relevant in top r) / r``, divided by
    ``num_rel`` (relevant documents not retrieved contribute 0). 0 when no
    relevant document is retrieved (including ``num_rel = 0``).
    """
    rr = _rr(ranking, qrels, relevance_level)
    total, rel_so_far = _ap_sum(rr, relevance_level)
    return total / rr.num_rel if rel_so_far else 0.0


def gm_map(ranking, qrels, relevance_level=1):
    """Per-query value stored by ``gm_map`` (``m_gm_map.c``).

    ``log(max(AP, MIN_GEO_MEAN))`` with AP as in :func:`map_`. Not printed
    per query; the ``all`` value is ``exp(mean of these logs)``, a geometric
    mean of AP in which every AP below 0.00001 (0 included) counts as 0.00001.
    """
    rr = _rr(ranking, qrels, relevance_level)
    total, rel_so_far = _ap_sum(rr, relevance_level)
    if rel_so_far:
        total = total / rr.num_rel
    return math.log(max(total, MIN_GEO_MEAN))


def Rprec(ranking, qrels, relevance_level=1):
    """Precision after R = ``num_rel`` documents (``m_Rprec.c``).

    ``(relevant in top min(R, num_ret)) / R``: if fewer than R documents are
    retrieved, the missing ones count as non-relevant. 0 when R = 0.
    """
    rr = _rr(ranking, qrels, relevance_level)
    n = min(rr.num_ret, rr.num_rel)
    if n == 0:
        return 0.0
    hits = sum(1 for rel in rr.rel_list[:n] if rel >= relevance_level)
    return hits / rr.num_rel


def _bpref(rr, relevance_level):
    # trec_eval sums rel_levels[0 .. relevance_level-1] (reading past the
    # array when relevance_level > largest grade + 1; the value is then only
    # used when no relevant document is retrieved, so it does not matter).
    num_nonrel = sum(rr.rel_levels[: max(relevance_level, 0)])
    nonrel_so_far = 0
    total = 0.0
    for rel in rr.rel_list:
        if rel in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED):
            continue
        if 0 <= rel < relevance_level:
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, rr.num_rel) / min(
                    num_nonrel, rr.num_rel
                )
            else:
                total += 1.0
    if rr.num_rel:
        total /= rr.num_rel
    return total


def bpref(ranking, qrels, relevance_level=1):
    """Binary preference (``m_bpref.c``, Buckley & Voorhees 2004).

    Only judged documents count (value >= 0; unjudged and negative-grade
    documents are skipped). With R = ``num_rel`` and N = number of judged
    non-relevant documents (grades ``0 .. relevance_level-1``, retrieved or
    not), for each retrieved relevant document with n judged non-relevant
    documents ranked above it add ``1 - min(n, R) / min(N, R)`` (1 when n = 0),
    then divide by R (0 when R = 0).
    """
    return _bpref(_rr(ranking, qrels, relevance_level), relevance_level)


def gm_bpref(ranking, qrels, relevance_level=1):
    """Per-query value of ``gm_bpref`` (``m_gm_bpref.c``).

    ``log(max(bpref, MIN_GEO_MEAN))``; only the ``all`` line is printed, with
    ``exp(mean of the logs)``.
    """
    return math.log(
        max(_bpref(_rr(ranking, qrels, relevance_level), relevance_level), MIN_GEO_MEAN)
    )


def recip_rank(ranking, qrels, relevance_level=1):
    """Reciprocal rank of the first relevant retrieved document (``m_recip_rank.c``).

    0 if none is retrieved. No cut-off.
    """
    rr = _rr(ranking, qrels, relevance_level)
    for i, rel in enumerate(rr.rel_list):
        if rel >= relevance_level:
            return 1.0 / (i + 1)
    return 0.0


def _recall_point(x, num_rel, legacy):
    """Number of relevant documents at recall level x.

    trec_eval 10.0: ``lround(x * num_rel)``; up to 9.0.8 (and in pytrec_eval
    0.5.x): ``(long)(x * num_rel + 0.9)``. They differ, e.g. for x = 0.1 and
    num_rel = 3 (0 against 1) or x = 0.6 and num_rel = 2 (1 against 2).
    """
    if legacy:
        return int(x * num_rel + 0.9)
    return _lround(x * num_rel)


def _interpolated_precisions(rr, relevance_level, levels, legacy=False):
    """Port of the loop shared by ``m_iprec_at_recall.c`` and ``m_11pt_avg.c``.

    Returns the interpolated precision of each level as the C loop assigns
    them (the caller sums or stores them).
    """
    cutoffs = [_recall_point(p, rr.num_rel, legacy) for p in levels]
    out = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > rr.num_rel_ret:
        current -= 1
    precis = rr.num_rel_ret / rr.num_ret if rr.num_ret else math.nan
    int_precis = precis
    rel_so_far = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if rr.rel_list[i - 1] >= relevance_level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                out[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        out[current] = int_precis
        current -= 1
    return out


def iprec_at_recall(
    ranking, qrels, relevance_level=1, levels=DEFAULT_RECALL_LEVELS, legacy=False
):
    """Interpolated precision at recall levels (``m_iprec_at_recall.c``).

    For level x the recall point is ``c = lround(x * num_rel)`` relevant
    documents (half away from zero; trec_eval <= 9 used ``(long)(x*R + 0.9)``).
    The value is the maximum precision at any rank at or below the rank where
    the c-th relevant document is retrieved (for c = 0: the maximum precision
    at any rank holding a relevant document, or ``num_rel_ret/num_ret``,
    whichever is larger); 0 if fewer than c relevant documents are retrieved.
    0 everywhere when nothing relevant is retrieved. Named
    ``iprec_at_recall_%3.2f``; default levels 0.0, 0.1, ..., 1.0.
    ``legacy=True``: trec_eval <= 9.0.8's recall points (see
    :func:`_recall_point`). With nothing ranked (possible after ``-J``) every
    value is NaN, as trec_eval's ``0.0 / 0``.
    """
    return _interpolated_precisions(
        _rr(ranking, qrels, relevance_level), relevance_level, levels, legacy
    )


def eleven_pt_avg(
    ranking, qrels, relevance_level=1, levels=DEFAULT_RECALL_LEVELS, legacy=False
):
    """``11pt_avg``: mean of the interpolated precisions (``m_11pt_avg.c``).

    The same interpolation as :func:`iprec_at_recall`, summed over the levels
    and divided by the number of levels (the name does not change with the
    levels given; the levels are used in the order given, not sorted).
    ``legacy`` as :func:`iprec_at_recall`.
    """
    values = _interpolated_precisions(
        _rr(ranking, qrels, relevance_level), relevance_level, levels, legacy
    )
    total = 0.0
    # The C code adds the values in decreasing level index order.
    for v in reversed(values):
        total += v
    return total / len(levels)


def _at_cutoffs(rel_list, cutoffs, counts, value):
    """trec_eval's cut-off loop: ``value(count_in_top_k, k)`` per cut-off.

    ``counts(rel)`` says whether a ranked document counts. Cut-offs beyond the
    ranking see the count of the whole ranking (non-counting documents fill
    in the rest).
    """
    out = []
    so_far = 0
    prefix = [0]
    for rel in rel_list:
        so_far += 1 if counts(rel) else 0
        prefix.append(so_far)
    for k in cutoffs:
        out.append(value(prefix[min(k, len(rel_list))], k))
    return out


def P(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_CUTOFFS):
    """Precision at k (``m_P.c``): ``(relevant in top k) / k``.

    Divides by k even when fewer than k documents are retrieved. Named
    ``P_%ld``; default cut-offs 5, 10, 15, 20, 30, 100, 200, 500, 1000.
    """
    rr = _rr(ranking, qrels, relevance_level)
    return _at_cutoffs(
        rr.rel_list, cutoffs, lambda r: r >= relevance_level, lambda n, k: n / k
    )


def recall(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_CUTOFFS):
    """Recall at k (``m_recall.c``): ``(relevant in top k) / num_rel``.

    0 when ``num_rel = 0``. Named ``recall_%ld``; default cut-offs as P.
    """
    rr = _rr(ranking, qrels, relevance_level)
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    return _at_cutoffs(
        rr.rel_list,
        cutoffs,
        lambda r: r >= relevance_level,
        lambda n, k: n / rr.num_rel,
    )


def relative_P(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_CUTOFFS):
    """Relative precision at k (``m_rel_P.c``): ``(relevant in top k) / min(k, R)``.

    R = ``num_rel``; 0 when R = 0. Precision up to R, recall after. Named
    ``relative_P_%ld``; default cut-offs as P.
    """
    rr = _rr(ranking, qrels, relevance_level)
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    return _at_cutoffs(
        rr.rel_list,
        cutoffs,
        lambda r: r >= relevance_level,
        lambda n, k: n / min(k, rr.num_rel),
    )


def success(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_SUCCESS_CUTOFFS):
    """Success at k (``m_success.c``): 1.0 if a relevant document is in the top k.

    Named ``success_%ld``; default cut-offs 1, 5, 10.
    """
    rr = _rr(ranking, qrels, relevance_level)
    return _at_cutoffs(
        rr.rel_list,
        cutoffs,
        lambda r: r >= relevance_level,
        lambda n, k: 1.0 if n else 0.0,
    )


def unj(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_UNJ_CUTOFFS):
    """Fraction of unjudged documents in the top k (``m_unjudged.c``).

    Unjudged: not in the qrels, or in them with a negative grade. Divides by
    k even when fewer than k documents are retrieved. Named ``unj_%ld``;
    default cut-offs 5, 10, 20 (a measure of 10.0, not in pytrec_eval).
    """
    rr = _rr(ranking, qrels, relevance_level)
    return _at_cutoffs(
        rr.rel_list,
        cutoffs,
        lambda r: r in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED),
        lambda n, k: n / k,
    )


def map_cut(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_CUTOFFS):
    """Average precision truncated at k (``m_map_cut.c``).

    ``sum over relevant ranks r <= k of (relevant in top r) / r``, divided by
    ``num_rel`` (not by min(k, R)). 0 when ``num_rel = 0``. Named
    ``map_cut_%ld``; default cut-offs as P.
    """
    rr = _rr(ranking, qrels, relevance_level)
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    sums = [0.0]
    rel_so_far = 0
    total = 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel >= relevance_level:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
        sums.append(total)
    return [sums[min(k, rr.num_ret)] / rr.num_rel for k in cutoffs]


def relstring(ranking, qrels, relevance_level=1, length=DEFAULT_RELSTRING_LEN):
    """The relevance values of the first ``length`` documents (``m_relstring.c``).

    One character per document: the grade if 0..9, ``>`` above 9, ``-`` if not
    in the qrels, ``.`` if in the qrels with a negative grade. Printed per
    query only, as ``'...'``. Default length 10; ``-m relstring.20`` names it
    ``relstring_20``. Independent of ``-l``.
    """
    rr = _rr(ranking, qrels, relevance_level)
    n = max(min(int(length), rr.num_ret), 0)
    chars = []
    for rel in rr.rel_list[:n]:
        if rel > 9:
            chars.append(">")
        elif rel >= 0:
            chars.append(str(rel))
        elif rel == RELVALUE_NONPOOL:
            chars.append("-")
        elif rel == RELVALUE_UNJUDGED:
            chars.append(".")
        else:
            chars.append("<")
    return "".join(chars)


def infAP(ranking, qrels, relevance_level=1):
    """Inferred AP (``m_infap.c``, Yilmaz & Aslam, CIKM 2006).

    Documents not in the qrels are skipped for the counts but keep their rank.
    Walking the ranking (0-based index j), with ``rel``, ``nonrel`` and
    ``unjudged`` (negative grade) counts of the documents above j, each
    relevant document at j adds 1 if j = 0, else::

        1/(j+1) + (j/(j+1)) * ((rel + nonrel + unjudged) / j)
                * ((rel + eps) / (rel + nonrel + 2 eps))

    with eps = ``INFAP_EPSILON`` = 0.00001; the sum is divided by
    ``num_rel`` (0 when ``num_rel = 0``). With complete judgments it is AP.
    """
    rr = _rr(ranking, qrels, relevance_level)
    nonrel_so_far = rel_so_far = pool_unjudged_so_far = 0
    inf_ap = 0.0
    for j, rel in enumerate(rr.rel_list):
        if rel == RELVALUE_NONPOOL:
            continue
        if rel == RELVALUE_UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if 0 <= rel < relevance_level:
            nonrel_so_far += 1
        else:
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj
                ) * (
                    (rel_so_far - 1 + INFAP_EPSILON)
                    / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
                )
    if rr.num_rel:
        inf_ap /= rr.num_rel
    return inf_ap


def Rprec_mult(ranking, qrels, relevance_level=1, mults=DEFAULT_RPREC_MULTS):
    """Precision at multiples of R (``m_Rprec_mult.c``).

    For multiple x the cut-off is ``c = (long)(x * num_rel + 0.9)`` (truncated;
    not ``lround`` as iprec_at_recall in 10.0) and the value is precision at c:
    ``(relevant in top c) / c``, with non-relevant documents filling in past
    the end of the ranking. 0 when c = 0 (so when ``num_rel = 0``). Named
    ``Rprec_mult_%3.2f``; default multiples 0.2, 0.4, ..., 2.0.
    """
    rr = _rr(ranking, qrels, relevance_level)
    cutoffs = [int(x * rr.num_rel + 0.9) for x in mults]
    out = [0.0] * len(mults)
    current = len(mults) - 1
    while current >= 0 and cutoffs[current] > rr.num_ret:
        out[current] = rr.num_rel_ret / cutoffs[current]
        current -= 1
    rel_so_far = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        while current >= 0 and i == cutoffs[current]:
            out[current] = precis
            current -= 1
        if rr.rel_list[i - 1] >= relevance_level:
            rel_so_far -= 1
        i -= 1
    return out


def utility(
    ranking, qrels, relevance_level=1, params=DEFAULT_UTILITY_PARAMS, num_docs_in_coll=0
):
    """Set utility (``m_utility.c``): ``p1*a + p2*b + p3*c + p4*d``.

    a = relevant retrieved, b = non-relevant retrieved (``num_ret - a``, so
    unjudged documents count as non-relevant), c = relevant not retrieved,
    d = ``num_docs_in_coll + a - num_ret - num_rel`` (``-N``, default 0).
    Default parameters (1, -1, 0, 0): ``a - b``. Averaged over queries in
    the ``all`` line. Exactly four parameters are required.
    """
    if len(params) != 4:
        raise ValueError("trec_eval.calc_utility: improper number of coefficients")
    rr = _rr(ranking, qrels, relevance_level)
    p1, p2, p3, p4 = params
    return (
        p1 * rr.num_rel_ret
        + p2 * (rr.num_ret - rr.num_rel_ret)
        + p3 * (rr.num_rel - rr.num_rel_ret)
        + p4 * (num_docs_in_coll + rr.num_rel_ret - rr.num_ret - rr.num_rel)
    )


def binG(ranking, qrels, relevance_level=1):
    """Binary G (``m_binG.c``, experimental).

    For the relevant document at 0-based index i with n non-relevant
    documents above it, add ``1 / log2(2 + n)`` (``log2(3 + i - rel_so_far)``,
    rel_so_far counting this one); divide by ``num_rel``. 0 when nothing
    relevant is retrieved.
    """
    rr = _rr(ranking, qrels, relevance_level)
    rel_so_far = 0
    total = 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel >= relevance_level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / rr.num_rel if rel_so_far else 0.0


def G(ranking, qrels, relevance_level=1, gain_pairs=()):
    """Normalized gain G (``m_G.c``, experimental). Ignores ``-l``.

    Gains as :func:`setup_gains` (default: gain = grade). Walking the ranking,
    ``sum_results`` accumulates the gains retrieved so far (this one
    included) and ``sum_cost`` accumulates ``max(ideal gain at this rank,
    1.0)`` (the ideal gain counted only while positive; 1.0 after the ideal
    ranking is exhausted); a document of gain g != 0 adds
    ``g / log2(2 + sum_cost - sum_results)``. The sum is divided by the total
    ideal gain (sum of the positive gains of all judged documents); 0 when
    that is 0.
    """
    rr = _rr(ranking, qrels, relevance_level)
    gains = setup_gains(rr, gain_pairs)
    ideal = _Ideal(gains)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    i = 0
    while i < rr.num_ret and ideal.gain > 0.0:
        results_gain = _get_gain(rr.rel_list[i], gains)
        sum_results += results_gain
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= min_cost else min_cost
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < rr.num_ret:
        results_gain = _get_gain(rr.rel_list[i], gains)
        sum_results += results_gain
        sum_cost += min_cost
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal.gain > 0.0:
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _dcg_and_ideal(rr, gains):
    """DCG of the ranking and ideal DCG over all judged documents (``m_ndcg.c``)."""
    ideal = _Ideal(gains)
    results_dcg = ideal_dcg = 0.0
    i = 0
    while i < rr.num_ret and ideal.gain > 0.0:
        results_gain = _get_gain(rr.rel_list[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    while i < rr.num_ret:
        results_gain = _get_gain(rr.rel_list[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        i += 1
    while ideal.gain > 0.0:
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return results_dcg, ideal_dcg


def ndcg(ranking, qrels, relevance_level=1, gain_pairs=()):
    """nDCG over the whole ranking (``m_ndcg.c``, Jarvelin & Kekalainen 2002).

    Gain = grade (``-m ndcg.1=3.5,...`` overrides), documents not in the qrels
    or with a negative grade gain 0; ``-l`` does not apply (a grade-1
    document gains 1 under ``-l2``). ``DCG = sum gain_i / log2(i + 1)`` over
    ranks i = 1.. (linear gain, no ``2^g - 1``); the ideal DCG ranks every
    judged document (retrieved or not) by decreasing gain and stops at the
    first gain <= 0. 0 when the ideal DCG is 0. No cut-off.
    """
    rr = _rr(ranking, qrels, relevance_level)
    results_dcg, ideal_dcg = _dcg_and_ideal(rr, setup_gains(rr, gain_pairs))
    return results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def dcg(ranking, qrels, relevance_level=1, gain_pairs=()):
    """DCG of :func:`ndcg` (``m_ndcg.c``, measure ``dcg``; not in all_trec)."""
    rr = _rr(ranking, qrels, relevance_level)
    return _dcg_and_ideal(rr, setup_gains(rr, gain_pairs))[0]


def ideal_dcg(ranking, qrels, relevance_level=1, gain_pairs=()):
    """Ideal DCG of :func:`ndcg` (measure ``ideal_dcg``; not in all_trec)."""
    rr = _rr(ranking, qrels, relevance_level)
    return _dcg_and_ideal(rr, setup_gains(rr, gain_pairs))[1]


def ndcg_cut(ranking, qrels, relevance_level=1, cutoffs=DEFAULT_CUTOFFS):
    """nDCG at k (``m_ndcg_cut.c``). Ignores ``-l``; takes no gain parameters.

    ``DCG@k = sum over ranks i <= k of grade_i / log2(i + 1)`` over documents
    with grade > 0; ``IDCG@k`` is the same over the top k of all judged
    documents sorted by decreasing grade (retrieved or not); value
    ``DCG@k / IDCG@k``, or DCG@k (= 0) when IDCG@k = 0. Cut-offs beyond the
    ranking (or beyond the judged positives) use the totals. Named
    ``ndcg_cut_%ld``; default cut-offs as P.
    """
    rr = _rr(ranking, qrels, relevance_level)
    dcgs = [0.0]
    total = 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel > 0:
            total += rel / math.log2(i + 2)
        dcgs.append(total)
    idcgs = [0.0]
    ideal_total = 0.0
    i = 0
    for level in range(rr.num_rel_levels - 1, 0, -1):
        for _ in range(rr.rel_levels[level]):
            ideal_total += level / math.log2(i + 2)
            idcgs.append(ideal_total)
            i += 1
    out = []
    for k in cutoffs:
        value = dcgs[min(k, rr.num_ret)]
        idcg = idcgs[min(k, len(idcgs) - 1)]
        out.append(value / idcg if idcg > 0.0 else value)
    return out


def ndcg_rel(ranking, qrels, relevance_level=1, gain_pairs=()):
    """nDCG averaged over the relevant documents (``m_ndcg_rel.c``, experimental).

    Ignores ``-l``; "relevant" means ideal gain > 0. For each retrieved
    document with gain > 0, take DCG/IDCG at its rank (IDCG stops growing
    once the ideal ranking runs out of positive gains); each positive-gain
    document not retrieved contributes the final DCG / final IDCG. The sum
    divided by the number of positive-gain judged documents; 0 if the sum is
    not > 0.
    """
    rr = _rr(ranking, qrels, relevance_level)
    gains = setup_gains(rr, gain_pairs)
    ideal = _Ideal(gains)
    results_dcg = ideal_dcg_ = 0.0
    total = 0.0
    n_rel_ret = n_rel = 0
    i = 0
    while i < rr.num_ret and ideal.gain > 0.0:
        results_gain = _get_gain(rr.rel_list[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            n_rel += 1
            ideal_dcg_ += ideal_gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg_
            n_rel_ret += 1
        i += 1
    while i < rr.num_ret:
        results_gain = _get_gain(rr.rel_list[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg_
            n_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal_gain = ideal.step()
        if ideal_gain > 0.0:
            n_rel += 1
            ideal_dcg_ += ideal_gain / math.log2(i + 2)
        i += 1
    if ideal_dcg_ == 0.0:
        # C computes 0 * 0/0 = NaN here and NaN > 0 is false: the value is 0.
        return 0.0
    total += (n_rel - n_rel_ret) * results_dcg / ideal_dcg_
    return total / n_rel if total > 0.0 else 0.0


def Rndcg(ranking, qrels, relevance_level=1, gain_pairs=()):
    """nDCG averaged at the R-level boundaries (``m_Rndcg.c``, experimental).

    0 when ``num_rel = 0`` (the only use of ``-l``). The R levels are the
    ranks where the ideal gain changes (end of each positive gain level of
    the judged documents, sorted by decreasing gain); nDCG (DCG/IDCG of the
    documents above that rank) is taken at each such boundary where IDCG > 0,
    plus once at the end of the ranking if the ranking is longer than the
    positive part of the ideal ranking; the value is their mean. E.g. 5
    documents of gain 3, 3 of gain 2, 10 of gain 1: mean of nDCG@5, @8, @18
    and @num_ret (if num_ret > 18).
    """
    rr = _rr(ranking, qrels, relevance_level)
    gains = setup_gains(rr, gain_pairs)
    if rr.num_rel == 0:
        return 0.0
    ideal = _Ideal(gains)
    old_ideal_gain = ideal.gain
    results_dcg = ideal_dcg_ = 0.0
    total = 0.0
    n_changed = 0
    i = 0
    while i < rr.num_ret and ideal.gain > 0.0:
        results_gain = _get_gain(rr.rel_list[i], gains)
        ideal_gain = ideal.step()
        if old_ideal_gain != ideal_gain:
            if ideal_dcg_ > 0.0:
                total += results_dcg / ideal_dcg_
                n_changed += 1
            old_ideal_gain = ideal_gain
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if ideal_gain > 0.0:
            ideal_dcg_ += ideal_gain / math.log2(i + 2)
        i += 1
    if i < rr.num_ret:
        while i < rr.num_ret:
            results_gain = _get_gain(rr.rel_list[i], gains)
            if results_gain != 0:
                results_dcg += results_gain / math.log2(i + 2)
            i += 1
        if ideal_dcg_ > 0.0:
            total += results_dcg / ideal_dcg_
            n_changed += 1
    while ideal.gain > 0.0:
        ideal_gain = ideal.step()
        if old_ideal_gain != ideal_gain:
            if ideal_dcg_ > 0.0:
                total += results_dcg / ideal_dcg_
                n_changed += 1
            old_ideal_gain = ideal_gain
        if ideal_gain > 0.0:
            ideal_dcg_ += ideal_gain / math.log2(i + 2)
        i += 1
    if n_changed == 0:
        return math.nan  # C: 0.0 / 0 (reachable only with -l <= 0)
    return total / n_changed


def set_P(ranking, qrels, relevance_level=1):
    """Set precision ``num_rel_ret / num_ret`` (``m_set_P.c``).

    0 if nothing is retrieved.
    """
    rr = _rr(ranking, qrels, relevance_level)
    return rr.num_rel_ret / rr.num_ret if rr.num_ret else 0.0


def set_relative_P(ranking, qrels, relevance_level=1):
    """``num_rel_ret / min(num_ret, num_rel)`` (``m_set_rel_P.c``); 0 if either is 0."""
    rr = _rr(ranking, qrels, relevance_level)
    if rr.num_ret and rr.num_rel:
        return rr.num_rel_ret / min(rr.num_ret, rr.num_rel)
    return 0.0


def set_recall(ranking, qrels, relevance_level=1):
    """Set recall ``num_rel_ret / num_rel`` (``m_set_recall.c``).

    0 if ``num_rel = 0``.
    """
    rr = _rr(ranking, qrels, relevance_level)
    return rr.num_rel_ret / rr.num_rel if rr.num_rel else 0.0


def set_map(ranking, qrels, relevance_level=1):
    """Unranked AP ``num_rel_ret**2 / (num_ret * num_rel)`` (``m_set_map.c``).

    0 if ``num_ret`` or ``num_rel`` is 0.
    """
    rr = _rr(ranking, qrels, relevance_level)
    if rr.num_ret and rr.num_rel:
        return (rr.num_rel_ret * rr.num_rel_ret) / (rr.num_ret * rr.num_rel)
    return 0.0


def set_F(ranking, qrels, relevance_level=1, beta=DEFAULT_SET_F_BETA):
    """Set F (``m_set_F.c``): ``(x + 1) P R / (x P + R)`` on the retrieved set.

    P = set_P, R = set_recall, x = the parameter (default 1.0; note x, not
    beta squared, weights P). 0 when nothing relevant is retrieved.
    ``-m set_F.0.5`` names it ``set_F_0.5``.
    """
    rr = _rr(ranking, qrels, relevance_level)
    if not rr.num_rel_ret:
        return 0.0
    p = rr.num_rel_ret / rr.num_ret
    r = rr.num_rel_ret / rr.num_rel
    x = beta
    return (x + 1.0) * p * r / (x * p + r)


def rbp(ranking, qrels, relevance_level=1, p=DEFAULT_RBP_P, gain_pairs=()):
    """Rank-biased precision (``m_rbp.c``, Moffat & Zobel 2008). Ignores ``-l``.

    ``(1 - p) * sum_i gain_i * p**(i - 1)`` over ranks i = 1..num_ret, p = 0.9
    by default (``-m rbp.p=0.95``). Gains as :func:`setup_gains` (default
    gain = grade; unjudged and negative grades gain 0), then, if any gain is
    < 0 or > 1, rescaled to ``(g - min) / (max - min)`` over the gain table
    of *this query*: with default gains a query whose largest judged grade is
    4 uses grade / 4. (trec_eval 10.0 reads ``min`` and ``max`` before
    initialising them; with the default gains the table always holds gain 0,
    so the table's own min/max, used here, is the only sensible reading.)
    """
    rr = _rr(ranking, qrels, relevance_level)
    gains = setup_gains(rr, gain_pairs)
    if gains:
        lo = min(g.gain for g in gains)
        hi = max(g.gain for g in gains)
        if lo < 0 or hi > 1:
            for g in gains:
                g.gain = (g.gain - lo) / (hi - lo)
    total = 0.0
    cur_p = 1.0
    for rel in rr.rel_list:
        gain = _get_gain(rel, gains)
        if gain != 0:
            total += gain * cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def rbp_resid(ranking, qrels, relevance_level=1, p=DEFAULT_RBP_P):
    """RBP residual (``m_rbp_resid.c``): the most RBP could still rise.

    ``p**num_ret + (1 - p) * sum over unjudged ranks i of p**(i - 1)``
    (unjudged: not in the qrels or negative grade; ``p**num_ret`` is the
    weight of the unretrieved tail), but 0 when no retrieved document is
    unjudged (the tail is then not counted). p = 0.9 by default.
    """
    rr = _rr(ranking, qrels, relevance_level)
    unj_so_far = 0
    total = 0.0
    cur_p = 1.0
    for rel in rr.rel_list:
        if rel < 0:
            unj_so_far += 1
            total += cur_p
        cur_p = cur_p * p
    return cur_p + (1 - p) * total if unj_so_far else 0.0


# ---------------------------------------------------------------------------
# Measure table and trec_eval's output
# ---------------------------------------------------------------------------

# Kinds of measure (how trec_eval names, accumulates and prints them):
#   "runid"  - summary only, string
#   "count"  - long, printed per query and summed in all (num_ret, ...)
#   "num_q"  - long, summary only
#   "double" - one double, averaged; "gm" - summary only, geometric mean
#   "cut_long" / "cut_double" - one double per cut-off, averaged
#   "relstring" - per query only, string
# Parameter styles: None, "long_cutoffs", "double_cutoffs", "double_params",
# "pairs".


@dataclass(frozen=True)
class Measure:
    name: str
    kind: str
    params: str | None
    func: object = None


MEASURES = {
    m.name: m
    for m in [
        Measure("runid", "runid", None),
        Measure("num_q", "num_q", None),
        Measure("num_ret", "count", None, num_ret),
        Measure("num_rel", "count", None, num_rel),
        Measure("num_rel_ret", "count", None, num_rel_ret),
        Measure("map", "double", None, map_),
        Measure("gm_map", "gm", None, gm_map),
        Measure("Rprec", "double", None, Rprec),
        Measure("bpref", "double", None, bpref),
        Measure("recip_rank", "double", None, recip_rank),
        Measure("iprec_at_recall", "cut_double", "double_cutoffs", iprec_at_recall),
        Measure("P", "cut_long", "long_cutoffs", P),
        Measure("relstring", "relstring", "double_params", relstring),
        Measure("recall", "cut_long", "long_cutoffs", recall),
        Measure("infAP", "double", None, infAP),
        Measure("gm_bpref", "gm", None, gm_bpref),
        Measure("Rprec_mult", "cut_double", "double_cutoffs", Rprec_mult),
        Measure("utility", "double", "double_params", utility),
        Measure("11pt_avg", "double", "double_params", eleven_pt_avg),
        Measure("binG", "double", None, binG),
        Measure("G", "double", "pairs", G),
        Measure("dcg", "double", "pairs", dcg),
        Measure("ideal_dcg", "double", "pairs", ideal_dcg),
        Measure("ndcg", "double", "pairs", ndcg),
        Measure("ndcg_rel", "double", "pairs", ndcg_rel),
        Measure("Rndcg", "double", "pairs", Rndcg),
        Measure("ndcg_cut", "cut_long", "long_cutoffs", ndcg_cut),
        Measure("map_cut", "cut_long", "long_cutoffs", map_cut),
        Measure("relative_P", "cut_long", "long_cutoffs", relative_P),
        Measure("success", "cut_long", "long_cutoffs", success),
        Measure("set_P", "double", None, set_P),
        Measure("set_relative_P", "double", None, set_relative_P),
        Measure("set_recall", "double", None, set_recall),
        Measure("set_map", "double", None, set_map),
        Measure("set_F", "double", "double_params", set_F),
        Measure("num_nonrel_judged_ret", "count", None, num_nonrel_judged_ret),
        Measure("rbp", "double", "pairs", rbp),
        Measure("rbp_resid", "double", "pairs", rbp_resid),
        Measure("unj", "cut_long", "long_cutoffs", unj),
    ]
}
"""The measures implemented here, in trec_eval's output order (``measures.c``).

trec_eval's list also holds the prefs/jg measures and yaap between
``num_nonrel_judged_ret`` and ``rbp``; they need other input formats and are
not implemented here.
"""

MEASURE_ORDER = tuple(MEASURES)

ALL_TREC = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
    "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
    "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
    "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
    "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
    "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    "num_nonrel_judged_ret",
)  # fmt: skip
"""The ``all_trec`` nickname of ``measures.c`` (trec_names), in its order."""

NICKNAMES = {
    "all_trec": ALL_TREC,
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
        "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    ),
}  # fmt: skip

_DEFAULT_PARAMS = {
    "iprec_at_recall": DEFAULT_RECALL_LEVELS,
    "P": DEFAULT_CUTOFFS,
    "relstring": (float(DEFAULT_RELSTRING_LEN),),
    "recall": DEFAULT_CUTOFFS,
    "Rprec_mult": DEFAULT_RPREC_MULTS,
    "utility": DEFAULT_UTILITY_PARAMS,
    "11pt_avg": DEFAULT_RECALL_LEVELS,
    "ndcg_cut": DEFAULT_CUTOFFS,
    "map_cut": DEFAULT_CUTOFFS,
    "relative_P": DEFAULT_CUTOFFS,
    "success": DEFAULT_SUCCESS_CUTOFFS,
    "set_F": (DEFAULT_SET_F_BETA,),
    "unj": DEFAULT_UNJ_CUTOFFS,
}


def _parse_params(style, text):
    """Parse ``-m name.text`` as ``meas_init.c`` does for each style."""
    pieces = text.split(",")
    if style == "long_cutoffs":
        values = sorted(atol(p) for p in pieces)
        if values[0] <= 0:
            raise ValueError("trec_eval: Negative cutoff detected")
        if len(set(values)) != len(values):
            raise ValueError("trec_eval: duplicate cutoffs detected")
        return tuple(values)
    if style == "double_cutoffs":
        values = sorted(atof(p) for p in pieces)
        if len(set(values)) != len(values):
            raise ValueError("trec_eval: duplicate cutoffs detected")
        return tuple(values)
    if style == "double_params":
        return tuple(atof(p) for p in pieces)  # kept in the order given
    if style == "pairs":
        pairs = []
        for p in pieces:
            name, eq, value = p.partition("=")
            if not eq:
                raise ValueError(f"trec_eval: malformed pair parameters in '{text}'")
            pairs.append((name, atof(value)))
        return tuple(pairs)
    raise ValueError(f"measure takes no parameters: {text!r}")


@dataclass
class _Marked:
    measure: Measure
    params: object  # parsed parameters (None: defaults)
    param_text: str | None  # printable parameters, None: default name


def parse_measure_args(measure_args):
    """Resolve trec_eval ``-m`` arguments into the measures to compute.

    Each argument is ``name`` or ``name.params`` where name is a measure or a
    nickname (``all_trec``, ``official``, ``set``); as in ``trec_eval.c`` the
    parameters of the first ``-m`` argument naming a measure are used, and
    the measures come out in trec_eval's order whatever the order of the
    arguments. Default: ``["official"]``.
    """
    if not measure_args:
        measure_args = ["official"]
    marked = set()
    params = {}
    for arg in measure_args:
        name, dot, text = arg.partition(".")
        if dot:
            if not text:
                raise ValueError(f"trec_eval: improper measure in parameter '{name}'")
            params.setdefault(name, text)
        names = NICKNAMES.get(name, (name,))
        for n in names:
            if n not in MEASURES:
                raise ValueError(f"trec_eval: illegal measure '{arg}'")
            marked.add(n)
    out = []
    for name in MEASURE_ORDER:
        if name not in marked:
            continue
        m = MEASURES[name]
        text = params.get(name)
        if text is not None and m.params is not None:
            out.append(_Marked(m, _parse_params(m.params, text), text))
        else:
            out.append(_Marked(m, None, None))
    return out


def _fmt_double_cut(name, x):
    return f"{name}_{x:3.2f}"


def _query_values(mk, ranking, qrels, relevance_level, num_docs_in_coll, legacy):
    """``[(printed name, value)]`` of one marked measure on one query."""
    m = mk.measure
    name = m.name if mk.param_text is None else f"{m.name}_{mk.param_text}"
    args = (ranking, qrels, relevance_level)
    if m.kind in ("cut_long", "cut_double"):
        cuts = mk.params if mk.params is not None else _DEFAULT_PARAMS[m.name]
        if m.name == "iprec_at_recall":
            values = m.func(*args, cuts, legacy)
        else:
            values = m.func(*args, cuts)
        if m.kind == "cut_long":
            names = [f"{m.name}_{k}" for k in cuts]
        else:
            names = [_fmt_double_cut(m.name, x) for x in cuts]
        return list(zip(names, values))
    if m.kind == "relstring":
        length = (mk.params or _DEFAULT_PARAMS["relstring"])[0]
        return [(name, m.func(*args, int(length)))]
    if m.name == "utility":
        params = mk.params if mk.params is not None else DEFAULT_UTILITY_PARAMS
        return [(name, m.func(*args, params, num_docs_in_coll))]
    if m.name == "11pt_avg":
        levels = mk.params if mk.params is not None else DEFAULT_RECALL_LEVELS
        if not levels:
            raise ValueError("trec_eval.calc_m_11ptavg: No cutoff values")
        return [(name, m.func(*args, levels, legacy))]
    if m.name == "set_F":
        beta = (mk.params or _DEFAULT_PARAMS["set_F"])[0]
        return [(name, m.func(*args, beta))]
    if m.name in ("rbp", "rbp_resid"):
        pairs = mk.params or ()
        p = DEFAULT_RBP_P
        for pname, value in pairs:
            if pname == "p":
                p = value
        if m.name == "rbp":
            return [(name, m.func(*args, p, pairs))]
        return [(name, m.func(*args, p))]
    if m.params == "pairs":
        return [(name, m.func(*args, mk.params or ()))]
    return [(name, m.func(*args))]


def _line(name, qid, text):
    return f"{name:<22s}\t{qid}\t{text}"


def _fmt_value(kind, value):
    if kind in ("count", "num_q"):
        return str(int(value))
    return "%6.4f" % value  # noqa: UP031 (C printf format kept verbatim)


def _to_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


BOGUS_DOCNO = "ceci_nest_pas_un_docno"
"""Docno of trec_eval's stand-in ranking for a qrels query missing from the run."""


def evaluate(
    qrels,
    run,
    measure_args=("all_trec",),
    relevance_level=1,
    average_complete=False,
    max_docs=None,
    judged_docs_only=False,
    num_docs_in_coll=0,
    missing_topics="error",
    legacy_v9=False,
):
    """Evaluate a run as trec_eval does; return per-query and summary values.

    ``qrels``: ``{qid: {docno: grade}}``; ``run``: ``{qid: [(docno, score)]}``
    (or ``{qid: {docno: score}}``). Options: ``relevance_level`` (``-l``),
    ``average_complete`` (``-c``), ``max_docs`` (``-M``),
    ``judged_docs_only`` (``-J``), ``num_docs_in_coll`` (``-N``).
    ``missing_topics``: what to do with a qrels query absent from the run
    without ``-c``: ``"error"`` (trec_eval 10.0 exits) or ``"skip"``
    (trec_eval <= 9.0.8, pytrec_eval). ``legacy_v9=True`` mimics trec_eval
    9.0.x as bundled in pytrec_eval 0.5.x where it differs from 10.0 on these
    measures: scores are compared as C floats (single precision, so scores
    equal in float32 tie), ``iprec_at_recall``/``11pt_avg`` use the old
    recall points (:func:`_recall_point`), and missing topics are skipped.

    Returns ``(per_query, summary)``: ``per_query`` is a list of ``(qid,
    [(marked measure, name, value), ...])`` in evaluation order and
    ``summary`` a list of ``(marked measure, name, value)`` (the ``all``
    values; per-query-only measures are absent).
    """
    marked = parse_measure_args(list(measure_args))
    per_query = []
    for qid in sorted(qrels, key=_docno_key):
        judged = qrels[qid]
        bogus = False
        if qid in run:
            docs = run[qid]
            if isinstance(docs, dict):
                docs = list(docs.items())
            if legacy_v9:
                docs = [(d, _to_float32(s)) for d, s in docs]
        elif average_complete:
            docs = [(BOGUS_DOCNO, 1.0)]
            bogus = True
        elif missing_topics == "skip" or legacy_v9:
            continue
        else:
            raise ValueError(f"trec_eval: result qid '{qid}' not found in qrels")
        ranking = rank_documents(docs, max_docs)
        rr = res_rels(ranking, judged, relevance_level, judged_docs_only)
        values = []
        for mk in marked:
            if mk.measure.func is None:
                continue
            for name, value in _query_values(
                mk, rr, judged, relevance_level, num_docs_in_coll, legacy_v9
            ):
                if bogus and name == "relstring":
                    value = ""
                elif bogus and (
                    name in ("num_ret", "utility", "rbp_resid")
                    or name.startswith("unj")
                ):
                    value = 0.0
                values.append((mk, name, value))
        per_query.append((qid, values))
    if not per_query:
        raise ValueError("trec_eval: No queries with both results and relevance info")
    n = len(qrels) if average_complete else len(per_query)
    summary = []
    for mk in marked:
        kind = mk.measure.kind
        if kind == "runid":
            summary.append((mk, "runid", None))
            continue
        if kind == "num_q":
            summary.append((mk, "num_q", n))
            continue
        if kind == "relstring":
            continue
        names = [name for m, name, _ in per_query[0][1] if m is mk]
        sums = dict.fromkeys(names, 0.0)
        for _, values in per_query:
            for m, name, value in values:
                if m is mk:
                    sums[name] += value
        for name in names:
            total = sums[name]
            if kind == "count":
                if mk.measure.name == "num_rel" and average_complete:
                    total = sum(1 for j in qrels.values() for g in j.values() if g > 0)
                value = total
            elif kind == "gm":
                total += (n - len(per_query)) * math.log(MIN_GEO_MEAN)
                value = math.exp(total / n)
            else:
                value = total / n
            summary.append((mk, name, value))
    return per_query, summary


def trec_eval_lines(
    qrels,
    run,
    run_id,
    measure_args=("all_trec",),
    query_flag=False,
    summary_flag=True,
    **options,
):
    """trec_eval's standard output, as a list of lines (no newlines).

    ``query_flag`` is ``-q`` (per-query lines first, query by query, each in
    measure order), ``summary_flag=False`` is ``-n``; ``run_id`` is printed
    on the ``runid`` line. Other options as :func:`evaluate`. E.g.
    ``trec_eval -m all_trec -mrelstring.20 -q -l2 qrels results`` is
    ``trec_eval_lines(qrels, run, run_id, ["all_trec", "relstring.20"],
    query_flag=True, relevance_level=2)``.
    """
    per_query, summary = evaluate(qrels, run, measure_args, **options)
    lines = []
    if query_flag:
        for qid, values in per_query:
            for mk, name, value in values:
                kind = mk.measure.kind
                if kind in ("gm", "runid", "num_q"):
                    continue
                if kind == "relstring":
                    lines.append(_line(name, qid, f"'{value}'"))
                else:
                    lines.append(_line(name, qid, _fmt_value(kind, value)))
    if summary_flag:
        for mk, name, value in summary:
            kind = mk.measure.kind
            if kind == "runid":
                lines.append(_line("runid", "all", run_id))
            else:
                lines.append(_line(name, "all", _fmt_value(kind, value)))
    return lines
