"""Checks of the plain-Python trec_eval reference (``trec_eval_reference.py``).

Sources of truth, all independent of the reference and of the package:

1. trec_eval 10.0's own regression outputs ``out.test.aq`` and
   ``out.test.aql`` (``tests/data/trec_eval``): the reference must write them
   byte for byte (774 lines, nothing normalised).
2. pytrec_eval 0.5.x (trec_eval's C code behind a Python API) on random
   qrels and runs: every per-query value of every measure it supports, to
   1e-12, with ties in scores, relevant documents not retrieved, unjudged
   retrieved documents, grades -1..4, queries with no relevant document,
   relevance levels 1..3, default and custom cut-offs, and ``-J``.
3. Small examples worked by hand in the comments.

pytrec_eval bundles trec_eval 9.0.x, which differs from 10.0 where noted
below; the comparison uses the reference's ``legacy_v9=True`` for those
points and the differences themselves are tested:

* 9.0.x stores scores as C ``float``: scores equal in single precision tie
  (then docno descending decides); 10.0 compares doubles.
* 9.0.x puts the recall point of ``iprec_at_recall``/``11pt_avg`` level x at
  ``(long)(x * R + 0.9)`` relevant documents; 10.0 at ``lround(x * R)``.
* pytrec_eval has no ``rbp``, ``rbp_resid``, ``unj``, ``dcg``,
  ``ideal_dcg`` (10.0 measures): they are checked against the regression
  files and by hand only. Its ``relstring`` and ``runid`` are numbers (0.0)
  and ``num_q`` is 1 per query: not compared.
* pytrec_eval 0.5.11 cannot take parameters for ``utility`` ("improper number
  of coefficients", the value is then 0) and aborts the process on
  ``name=value`` parameters (``ndcg.1=3``): only default ``utility`` and
  default gains are compared.
* pytrec_eval skips qrels queries missing from the run (as trec_eval 9.0.x);
  trec_eval 10.0 exits with an error unless ``-c``.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import pytest
import trec_eval_reference as ref

TREC_DIR = Path(__file__).resolve().parent / "data" / "trec_eval"

# trec_eval's Makefile target quicktest:
#   trec_eval -m all_trec -q test/qrels.test test/results.test > out.test.aq
#   trec_eval -m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level
#             test/results.test > out.test.aql
REGRESSION_CASES = {
    "aq": ("qrels.test", "out.test.aq", ["all_trec"], 1),
    "aql": ("qrels.rel_level", "out.test.aql", ["all_trec", "relstring.20"], 2),
}


# ---------------------------------------------------------------------------
# 1. trec_eval's regression outputs, byte for byte
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(REGRESSION_CASES))
def test_reproduces_trec_eval_regression_output(case):
    qrels_file, out_file, measure_args, level = REGRESSION_CASES[case]
    run, run_id = ref.read_results(TREC_DIR / "results.test")
    qrels = ref.read_qrels(TREC_DIR / qrels_file)
    lines = ref.trec_eval_lines(
        qrels, run, run_id, measure_args, query_flag=True, relevance_level=level
    )
    expected = (TREC_DIR / out_file).read_bytes()
    expected_lines = expected.decode("ascii").split("\n")[:-1]
    assert len(lines) == len(expected_lines) == 387
    mismatches = [(a, b) for a, b in zip(lines, expected_lines) if a != b]
    assert not mismatches, mismatches[:10]
    assert ("\n".join(lines) + "\n").encode("ascii") == expected


def _base_name(printed):
    # P_5 -> P, iprec_at_recall_0.10 -> iprec_at_recall, relstring_20 ->
    # relstring; num_rel_ret, 11pt_avg unchanged.
    return re.match(r"^(.*?)(_[0-9.]+)?$", printed).group(1)


def test_regression_files_cover_every_all_trec_measure():
    # Every all_trec measure prints in out.test.aq, and the 'all' lines come
    # in the reference's order (trec_eval's te_trec_measures).
    text = (TREC_DIR / "out.test.aq").read_text()
    printed = {_base_name(line.split()[0]) for line in text.splitlines()}
    assert printed == set(ref.ALL_TREC)
    order = []
    for line in text.splitlines():
        if "\tall\t" in line and _base_name(line.split()[0]) not in order:
            order.append(_base_name(line.split()[0]))
    assert order == [
        n for n in ref.MEASURE_ORDER if n in ref.ALL_TREC and n != "relstring"
    ]


# ---------------------------------------------------------------------------
# 3. Hand-worked examples
# ---------------------------------------------------------------------------

# One query: X is not in the qrels (-), D has a negative grade (in the pool,
# unjudged: '.'), E (grade 3) is relevant but not retrieved.
HAND_QRELS = {"A": 2, "B": 0, "C": 1, "D": -1, "E": 3}
HAND_RANKING = ["X", "A", "B", "D", "C"]


def _hand(func, level=1, *args):
    return func(HAND_RANKING, HAND_QRELS, level, *args)


def test_hand_worked_binary_measures():
    # -l1: relevant = A, C, E -> num_rel 3, num_rel_ret 2 (ranks 2 and 5).
    assert _hand(ref.num_ret) == 5
    assert _hand(ref.num_rel) == 3
    assert _hand(ref.num_rel_ret) == 2
    # num_ret - nonpool (X) - unjudged (D) - rel_ret = 5 - 1 - 1 - 2 = 1 (B).
    assert _hand(ref.num_nonrel_judged_ret) == 1
    assert _hand(ref.relstring) == "-20.1"
    assert _hand(ref.P, 1, (1, 2, 5, 10)) == [0.0, 0.5, 0.4, 0.2]
    assert _hand(ref.recall, 1, (2, 5)) == [1 / 3, 2 / 3]
    assert _hand(ref.success, 1, (1, 2)) == [0.0, 1.0]
    # relative_P_k = rel in top k / min(k, 3): top 5 -> 2/3, top 2 -> 1/2.
    assert _hand(ref.relative_P, 1, (2, 5)) == [0.5, 2 / 3]
    # AP = (1/2 + 2/5) / 3 = 0.3; map_cut_2 = (1/2) / 3.
    assert _hand(ref.map_) == pytest.approx(0.3, abs=1e-15)
    assert _hand(ref.map_cut, 1, (2, 5)) == pytest.approx([1 / 6, 0.3], abs=1e-15)
    assert _hand(ref.gm_map) == pytest.approx(math.log(0.3), abs=1e-15)
    assert _hand(ref.recip_rank) == 0.5
    # Rprec: top R = 3 are X, A, B -> 1/3.
    assert _hand(ref.Rprec) == 1 / 3
    # bpref: N = 1 judged non-relevant (B). A: no nonrel above -> 1; C: B
    # above -> 1 - min(1,3)/min(1,3) = 0. (1 + 0) / 3.
    assert _hand(ref.bpref) == 1 / 3
    # infAP: A at j=1: 1/2 + (1/2)(0/1)(...) = 1/2. C at j=4 with 1 rel,
    # 1 nonrel, 1 unjudged above: 1/5 + (4/5)(3/4)((1+e)/(2+2e)) = 1/2.
    assert _hand(ref.infAP) == pytest.approx(1 / 3, abs=1e-15)
    # binG: A after 1 non-relevant: 1/log2(3); C after 3: 1/log2(5).
    assert _hand(ref.binG) == pytest.approx(
        (1 / math.log2(3) + 1 / math.log2(5)) / 3, abs=1e-15
    )
    # set_F (x = 1): P = 2/5, R = 2/3 -> 2PR/(P+R) = 0.5.
    assert _hand(ref.set_F) == pytest.approx(0.5, abs=1e-15)
    assert _hand(ref.set_map) == pytest.approx(4 / 15, abs=1e-15)
    # utility (1, -1, 0, 0): 2 relevant - 3 other retrieved.
    assert _hand(ref.utility) == -1.0
    # unj: X and D in the top 5; 2/5, and 2/10 past the end.
    assert _hand(ref.unj, 1, (1, 5, 10)) == [1.0, 0.4, 0.2]


def test_hand_worked_relevance_level_2():
    # -l2: relevant = A (2), E (3); C (grade 1) is judged non-relevant.
    assert _hand(ref.num_rel, 2) == 2
    assert _hand(ref.num_nonrel_judged_ret, 2) == 2
    # N = grades 0 and 1 = 2; A has no judged nonrel above: 1; / R = 2.
    assert _hand(ref.bpref, 2) == 0.5
    # nDCG ignores -l: the same value at -l1 and -l2.
    assert _hand(ref.ndcg, 2) == _hand(ref.ndcg, 1)


def test_hand_worked_gain_measures():
    # DCG: A (2) at rank 2, C (1) at rank 5. Ideal: E 3, A 2, C 1.
    dcg = 2 / math.log2(3) + 1 / math.log2(6)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert _hand(ref.ndcg) == pytest.approx(dcg / idcg, abs=1e-15)
    assert _hand(ref.dcg) == pytest.approx(dcg, abs=1e-15)
    assert _hand(ref.ideal_dcg) == pytest.approx(idcg, abs=1e-15)
    # ndcg_cut_2: DCG@2 = 2/log2(3); IDCG@2 = 3 + 2/log2(3).
    assert _hand(ref.ndcg_cut, 1, (2,))[0] == pytest.approx(
        (2 / math.log2(3)) / (3 + 2 / math.log2(3)), abs=1e-15
    )
    # -m ndcg.3=0: E's grade 3 now gains 0; ideal is A 2, C 1.
    assert _hand(ref.ndcg, 1, (("3", 0.0),)) == pytest.approx(
        dcg / (2 + 1 / math.log2(3)), abs=1e-15
    )
    # rbp (p = 0.9): gains rescaled by this query's top grade 3: A 2/3 at
    # rank 2, C 1/3 at rank 5: 0.1 * (2/3 * 0.9 + 1/3 * 0.9**4).
    assert _hand(ref.rbp) == pytest.approx(
        0.1 * (2 / 3 * 0.9 + 1 / 3 * 0.9**4), abs=1e-15
    )
    # rbp_resid: unjudged X (rank 1) and D (rank 4), tail after rank 5:
    # 0.9**5 + 0.1 * (1 + 0.9**3).
    assert _hand(ref.rbp_resid) == pytest.approx(0.9**5 + 0.1 * (1 + 0.9**3), abs=1e-15)
    # No unjudged document retrieved: rbp_resid is 0, tail or not.
    assert ref.rbp_resid(["A", "B"], HAND_QRELS) == 0.0


def test_hand_worked_interpolated_precision():
    # R = 3; precision 1/2 at the first relevant (rank 2), 2/5 at the
    # second (rank 5); the third is not retrieved.
    # 10.0: recall point lround(3x): x=0.4 -> 1 relevant -> 0.5;
    # x=0.5 -> 2 -> 0.4; x=0.9 -> 3 (not reached) -> 0.
    levels = (0.0, 0.4, 0.5, 0.9)
    assert _hand(ref.iprec_at_recall, 1, levels) == [0.5, 0.5, 0.4, 0.0]
    # 9.0.x: (long)(3x + 0.9): x=0.4 -> 2 -> 0.4.
    assert ref.iprec_at_recall(HAND_RANKING, HAND_QRELS, 1, levels, legacy=True) == [
        0.5,
        0.4,
        0.4,
        0.0,
    ]
    # 11pt_avg: default levels under 10.0 are 0.5 for x in 0.0 .. 0.4
    # (points 0, 0, 1, 1, 1), 0.4 for 0.5 .. 0.8, 0 for 0.9 and 1.0.
    assert _hand(ref.eleven_pt_avg) == pytest.approx(
        (5 * 0.5 + 4 * 0.4) / 11, abs=1e-15
    )
    # Rprec_mult_x: precision at (long)(3x + 0.9) documents.
    # x=0.2 -> 1 doc (X) -> 0; x=1.0 -> 3 -> 1/3; x=2.0 -> 6 (past the end)
    # -> 2/6.
    assert _hand(ref.Rprec_mult, 1, (0.2, 1.0, 2.0)) == [0.0, 1 / 3, 1 / 3]


def test_ranking_order_and_max_docs():
    # Score descending, ties by docno descending in byte order ('B' < 'a',
    # 'd10' < 'd9').
    docs = [("a", 1.0), ("B", 1.0), ("d10", 2.0), ("d9", 2.0), ("z", 0.5)]
    assert ref.rank_documents(docs) == ["d9", "d10", "a", "B", "z"]
    assert ref.rank_documents(docs, max_docs=2) == ["d9", "d10"]
    with pytest.raises(ValueError, match="duplicate"):
        ref.rank_documents([("a", 1.0), ("a", 2.0)])
    # -M 2 on the hand query keeps X, A: P_5 = 1/5, num_ret = 2.
    per_query, _ = ref.evaluate(
        {"q": HAND_QRELS},
        {"q": {d: 10.0 - i for i, d in enumerate(HAND_RANKING)}},
        ["P.5", "num_ret"],
        max_docs=2,
    )
    assert [(n, v) for _, n, v in per_query[0][1]] == [("num_ret", 2), ("P_5", 0.2)]


def test_missing_topic_and_average_complete():
    qrels = {"q1": HAND_QRELS, "q2": {"Z": 1, "Y": 0}}
    run = {"q1": {d: 10.0 - i for i, d in enumerate(HAND_RANKING)}, "q3": {"Z": 1}}
    # trec_eval 10.0 exits on a qrels topic missing from the run.
    with pytest.raises(ValueError, match="not found"):
        ref.evaluate(qrels, run, ["map"])
    # -c: q2 is evaluated on the bogus one-document ranking; its num_ret is
    # reset to 0 and its relstring to ''. map all = (0.3 + 0) / 2;
    # gm_map all = exp((log 0.3 + log 1e-5) / 2); num_rel all = grades > 0
    # over all qrels topics = 3 + 1, whatever -l (here -l2: 2 + 0 per query).
    lines = ref.trec_eval_lines(
        qrels,
        run,
        "tag",
        ["num_q", "num_ret", "num_rel", "map", "gm_map", "relstring"],
        query_flag=True,
        average_complete=True,
        relevance_level=2,
    )
    values = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines}
    assert values[("num_ret               ", "q2")] == "0"
    assert values[("relstring             ", "q2")] == "''"
    assert values[("num_rel               ", "q1")] == "2"
    assert values[("num_rel               ", "all")] == "4"
    assert values[("num_q                 ", "all")] == "2"
    assert values[("num_ret               ", "all")] == "5"
    # -l2: AP of q1 = (1/2) / 2 = 0.25 -> all = 0.125.
    assert values[("map                   ", "all")] == "0.1250"
    gm = math.exp((math.log(0.25) + math.log(1e-5)) / 2)
    assert values[("gm_map                ", "all")] == "%6.4f" % gm  # noqa: UP031
    # Without -c but skipping like trec_eval 9 / pytrec_eval: q1 only.
    _, summary = ref.evaluate(qrels, run, ["map"], missing_topics="skip")
    assert summary[0][2] == pytest.approx(0.3, abs=1e-15)


def test_measure_arguments():
    marked = ref.parse_measure_args(["P.10,5", "all_trec", "P.20", "set_F.0.5"])
    names = [m.measure.name for m in marked]
    assert names == [n for n in ref.MEASURE_ORDER if n in ref.ALL_TREC]
    p = next(m for m in marked if m.measure.name == "P")
    assert p.params == (5, 10)  # the first -m P.* wins; cut-offs sorted
    f = next(m for m in marked if m.measure.name == "set_F")
    assert f.param_text == "0.5"
    with pytest.raises(ValueError, match="illegal measure"):
        ref.parse_measure_args(["prefs_simp"])
    with pytest.raises(ValueError, match="Negative cutoff"):
        ref.parse_measure_args(["P.0,5"])
    per_query, _ = ref.evaluate(
        {"q": HAND_QRELS}, {"q": {"A": 1.0}}, ["set_F.0.5", "relstring.3"]
    )
    assert [n for _, n, _ in per_query[0][1]] == ["relstring_3", "set_F_0.5"]


# ---------------------------------------------------------------------------
# 2. pytrec_eval on random qrels and runs
# ---------------------------------------------------------------------------

# Measures pytrec_eval supports that are not compared, and why.
NOT_COMPARED = {
    "runid": "a string in trec_eval; pytrec_eval returns 0.0",
    "relstring": "a string in trec_eval; pytrec_eval returns 0.0",
    "num_q": "summary-only in trec_eval; pytrec_eval returns 1.0 per query",
}
# Cut-off and parameter variants given to pytrec_eval, one evaluator each
# (trec_eval uses the first parameters given for a measure).
PARAMETER_VARIANTS = [
    "P.1,3,7,60",
    "recall.2,50",
    "ndcg_cut.1,3,4,45",
    "map_cut.2,4",
    "success.2,3,100",
    "relative_P.4,8",
    "iprec_at_recall.0.25,0.33,0.75",
    "Rprec_mult.0.5,1.5,3",
    "set_F.0.5",
    "set_F.3",
    "11pt_avg.0.2,0.5,0.8",
]


def _random_case(seed):
    """Random qrels and run, trec_eval's edge cases included.

    Docnos of mixed case and length (byte order differs from numeric order);
    grades -1..4 (some queries only -1 and 0: no relevant document); every
    query has a judgment >= 0 (trec_eval reuses stale per-query state
    otherwise); some relevant documents unretrieved, some retrieved documents
    unjudged; scores on a coarse grid (many ties) or a fine one, all exact in
    single precision so that trec_eval 9 and 10 order them alike. One run
    query has no qrels (ignored).
    """
    rng = random.Random(seed)
    pool = [f"d{j}" for j in range(60)] + ["D7", "d-x", "e1", "a", "Z"]
    qrels, run = {}, {}
    for q in range(30):
        qid = f"q{q * 37 % 101}"
        judged = rng.sample(pool, rng.randint(1, 40))
        grades = [-1, 0] if q % 6 == 0 else [-1, 0, 0, 0, 1, 1, 2, 3, 4]
        judgments = {d: rng.choice(grades) for d in judged}
        judgments[judged[0]] = max(judgments[judged[0]], 0)
        qrels[qid] = judgments
        docs = rng.sample(pool, rng.randint(1, 50))
        if q % 3 == 0:
            run[qid] = {d: rng.randrange(8) / 4 for d in docs}
        else:
            run[qid] = {d: rng.randrange(1 << 20) / 1024 for d in docs}
    run["no_qrels"] = {"d1": 1.0}
    return qrels, run


def _pytrec_name(mk, name):
    # pytrec_eval keeps the base name when a non-cut-off measure has
    # parameters (trec_eval prints e.g. set_F_0.5).
    if mk.param_text is not None and mk.measure.kind not in ("cut_long", "cut_double"):
        return mk.measure.name
    return name


def _compare(qrels, run, measure_args, level, judged_only=False):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(measure_args), relevance_level=level,
        judged_docs_only_flag=judged_only,
    )  # fmt: skip
    expected = evaluator.evaluate(run)
    per_query, _ = ref.evaluate(
        qrels,
        run,
        measure_args,
        relevance_level=level,
        judged_docs_only=judged_only,
        legacy_v9=True,
    )
    assert sorted(expected) == [qid for qid, _ in per_query]
    compared = 0
    for qid, values in per_query:
        got = {_pytrec_name(mk, name): value for mk, name, value in values}
        assert set(got) == set(expected[qid]), qid
        for name, value in got.items():
            other = expected[qid][name]
            # Both NaN: iprec_at_recall of a query with nothing ranked (-J
            # can remove every document) is 0/0 in trec_eval too.
            same = math.isnan(value) and math.isnan(other)
            assert same or abs(value - other) <= 1e-12, (qid, name, level)
            compared += 1
    return compared


def _compared_measures():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return sorted(set(pytrec_eval.supported_measures) - set(NOT_COMPARED))


def test_every_pytrec_eval_measure_is_compared_or_explained():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    supported = set(pytrec_eval.supported_measures)
    assert set(NOT_COMPARED) <= supported
    # Every measure pytrec_eval computes is one of the reference's.
    assert supported <= set(ref.MEASURES)
    # The all_trec measures pytrec_eval lacks are the 10.0 additions.
    assert set(ref.ALL_TREC) - supported == {"rbp", "rbp_resid", "unj"}


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_pytrec_eval(seed, level):
    qrels, run = _random_case(seed)
    compared = _compare(qrels, run, _compared_measures(), level)
    assert compared > 30 * 90  # ~100 values per query
    for variant in PARAMETER_VARIANTS:
        assert _compare(qrels, run, [variant], level)


@pytest.mark.parametrize("seed", range(2))
def test_agrees_with_pytrec_eval_judged_docs_only(seed):
    qrels, run = _random_case(100 + seed)
    assert _compare(qrels, run, _compared_measures(), 1, judged_only=True)


def test_random_cases_hold_the_edge_cases():
    qrels, run = _random_case(0)
    rankings = {q: ref.rank_documents(list(run[q].items())) for q in qrels}
    rr = {q: ref.res_rels(rankings[q], qrels[q], 1) for q in qrels}
    assert any(r.num_rel == 0 for r in rr.values())
    assert any(r.num_rel > r.num_rel_ret > 0 for r in rr.values())
    assert any(r.num_nonpool and r.num_unjudged_in_pool for r in rr.values())
    assert any(len(set(run[q].values())) < len(run[q]) for q in qrels)


def test_pytrec_eval_ties_in_single_precision():
    # 1 + 1e-9 and 1.0 differ as doubles but not as floats. trec_eval 10.0
    # ranks a (1 + 1e-9) first; pytrec_eval (trec_eval 9 floats) ties them
    # and puts b first (docno descending).
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert expected["q"]["recip_rank"] == 0.5
    legacy, _ = ref.evaluate(qrels, run, ["recip_rank"], legacy_v9=True)
    assert legacy[0][1][0][2] == 0.5
    current, _ = ref.evaluate(qrels, run, ["recip_rank"])
    assert current[0][1][0][2] == 1.0


def test_pytrec_eval_uses_trec_eval_9_recall_points():
    # The hand query: pytrec_eval's iprec_at_recall_0.40 is 0.4 (point
    # (long)(1.2 + 0.9) = 2), trec_eval 10.0's is 0.5 (lround(1.2) = 1).
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q": {d: 10.0 - i for i, d in enumerate(HAND_RANKING)}}
    expected = pytrec_eval.RelevanceEvaluator(
        {"q": HAND_QRELS}, {"iprec_at_recall"}
    ).evaluate(run)
    assert expected["q"]["iprec_at_recall_0.40"] == 0.4
    assert _hand(ref.iprec_at_recall, 1, (0.4,)) == [0.5]
