"""TREC qrels and run files (``read_trec_qrels``, ``read_trec_run``,
``from_trec``).

References: trec_eval's regression files (their counts in out.test.aq), a
plain ``str.split`` parse written in the test, and trec_eval itself through
pytrec_eval on generated runs with tied scores, unretrieved relevant
documents, negative grades and queries missing on either side.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from helpers import row_values, trec_file

from sklearn_rankk import (
    from_trec,
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    r_precision_score,
    read_trec_qrels,
    read_trec_run,
    recall_at_k_score,
)

# --------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------


def test_readers_on_trec_eval_files():
    """The readers agree with a plain split of every line."""
    qrels_path, run_path = trec_file("qrels.rel_level"), trec_file("results.test")
    qrels = read_trec_qrels(qrels_path)
    run = read_trec_run(str(run_path))
    lines = [line.split() for line in qrels_path.read_text().splitlines()]
    assert sum(map(len, qrels.values())) == len(lines) == 3681
    for qid, _, docno, rel in lines:
        assert qrels[qid][docno] == int(rel)
    lines = [line.split() for line in run_path.read_text().splitlines()]
    assert sum(map(len, run.values())) == len(lines) == 1500
    for qid, _, docno, _, score, _ in lines:
        assert run[qid][docno] == float(score)
    assert sorted(run) == ["301", "302", "303"]


def test_from_trec_holds_trec_eval_counts():
    """num_ret, num_rel and num_rel_ret per topic, as out.test.aq prints them."""
    out = {}
    for line in trec_file("out.test.aq").read_text().splitlines():
        measure, qid, value = line.split()
        out[(measure, qid)] = value
    y_true, y_score, qids = from_trec(
        trec_file("qrels.test"), trec_file("results.test")
    )
    assert qids == ["301", "302", "303"]
    retrieved, relevant = np.isfinite(y_score), y_true >= 1
    for i, qid in enumerate(qids):
        assert retrieved[i].sum() == int(out[("num_ret", qid)])
        assert relevant[i].sum() == int(out[("num_rel", qid)])
        assert (retrieved & relevant)[i].sum() == int(out[("num_rel_ret", qid)])


def test_readers_accept_paths_and_open_files(tmp_path):
    text = "# a comment\n\nq1 0 d1 1\n  q1 0 d2 0\r\nq2 0 d1 -1\n"
    expected = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": -1}}
    path = tmp_path / "qrels"
    path.write_text(text)
    assert read_trec_qrels(path) == expected
    assert read_trec_qrels(str(path)) == expected
    assert read_trec_qrels(io.StringIO(text)) == expected
    assert read_trec_qrels(io.BytesIO(text.encode())) == expected
    with open(path) as f:
        assert read_trec_qrels(f) == expected
    run = "q1 Q0 d1 1 -2.5e-1 tag extra fields\nq1 Q0 d2 7 3 tag\n"
    assert read_trec_run(io.StringIO(run)) == {"q1": {"d1": -0.25, "d2": 3.0}}


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (read_trec_qrels, "q 0 d 1\nq 0 d\n", "FILE:2: expected 4 fields"),
        (read_trec_qrels, "q 0 d 1 1\n", "FILE:1: expected 4 fields"),
        (read_trec_qrels, "q 0 d 1\n\nq 0 e 0.5\n", "FILE:3: relevance '0.5' is not"),
        (read_trec_qrels, "q 0 d yes\n", "FILE:1: relevance 'yes' is not an integer"),
        (read_trec_qrels, "q 0 d 1\nq 0 d 0\n", "FILE:2: document 'd' is judged twice"),
        (read_trec_run, "q Q0 d 1 0.5\n", "FILE:1: expected 6 fields"),
        (read_trec_run, "q Q0 d 1 high t\n", "FILE:1: score 'high' is not a finite"),
        (read_trec_run, "q Q0 d 1 nan t\n", "FILE:1: score 'nan' is not a finite"),
        (read_trec_run, "q Q0 d 1 -inf t\n", "FILE:1: score '-inf' is not a finite"),
        (read_trec_run, "q Q0 d 1 1 t\nq Q0 d 2 0 t\n",
         "FILE:2: document 'd' is listed twice for query 'q'"),
    ],
)  # fmt: skip
def test_reader_errors_name_file_and_line(tmp_path, reader, text, message):
    path = tmp_path / "bad file"
    path.write_text(text)
    with pytest.raises(ValueError, match=message.replace("FILE", str(path))):
        reader(path)


def test_reader_error_on_bad_encoding(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q Q0 d 1 1 t\nq Q0 \xff 2 0 t\n")
    with pytest.raises(ValueError, match=f"{path}:2: not UTF-8"):
        read_trec_run(path)


def test_reader_rejects_other_inputs():
    with pytest.raises(TypeError, match="path or an open file"):
        read_trec_run(["q Q0 d 1 1 t"])


# --------------------------------------------------------------------------
# from_trec: layout
# --------------------------------------------------------------------------


def test_layout_and_query_selection():
    qrels = {"q2": {"a": 1, "b": 0, "z": 2, "n": -1}, "q1": {"x": 0}, "q9": {"a": 1}}
    run = {"q1": {"x": 1.0}, "q2": {"b": 0.5, "a": 0.5, "c": 0.9}, "q5": {"a": 1.0}}
    # The layout without marking (mark_unjudged=False, the default before
    # issue 25).
    y_true, y_score, qids = from_trec(qrels, run, mark_unjudged=False)
    # q5 has no judgments and q9 no results: both left out, as in trec_eval.
    assert qids == ["q1", "q2"]
    # q2: c (0.9), then the tie a, b by docno ascending (ignore_ties=True ranks
    # the later column first: b, then a, trec_eval's order), then z
    # unretrieved.
    np.testing.assert_array_equal(
        y_score, [[1.0, -np.inf, -np.inf, -np.inf], [0.9, 0.5, 0.5, -np.inf]]
    )
    np.testing.assert_array_equal(y_true, [[0, 0, 0, 0], [0, 1, 0, 2]])
    assert y_true.dtype == np.int8
    # complete=True (trec_eval -c): every query of the qrels.
    y_true, y_score, qids = from_trec(qrels, run, complete=True, mark_unjudged=False)
    assert qids == ["q1", "q2", "q9"]
    np.testing.assert_array_equal(y_true[2], [1, 0, 0, 0])
    assert np.isneginf(y_score[2]).all()


def test_ties_trec_eval_order_and_average():
    """Three tied documents, one relevant: trec_eval ranks by docno
    descending; the tie-aware value is the mean over the 3! orders."""
    qrels = {"q": {"d2": 1}}
    run = {"q": {"d1": 0.0, "d2": 0.0, "d3": 0.0}}
    y_true, y_score, _ = from_trec(qrels, run)
    # trec_eval order d3, d2, d1: the relevant one at rank 2.
    assert precision_at_k_score(y_true, y_score, k=1, ignore_ties=True) == 0.0
    assert mrr_at_k_score(y_true, y_score, k=None, ignore_ties=True) == 0.5
    assert precision_at_k_score(y_true, y_score, k=1) == pytest.approx(1 / 3)
    assert mrr_at_k_score(y_true, y_score, k=None) == pytest.approx(
        (1 + 1 / 2 + 1 / 3) / 3
    )


def test_padding_changes_nothing():
    """A padded row gives the values of the query's own one-row matrix."""
    qrels, run = random_trec(3, tied=True)
    y_true, y_score, qids = from_trec(qrels, run, complete=True)
    names = ["precision@5", "recall@10", "f1@5", "hit@3", "mrr", "mrr@5", "map",
             "map@10", "r_precision"]  # fmt: skip
    widths = set()
    for ignore_ties in (False, True):
        options = {"zero_division": np.nan, "ignore_ties": ignore_ties}

        def all_values(t, s, options=options):
            graded = ["dcg@5", "ndcg", "ndcg@10"]
            return {**row_values(names, t, s, **options),
                    **row_values(graded, np.maximum(t, 0), s, **options)}  # fmt: skip

        full = all_values(y_true, y_score)
        for i, qid in enumerate(qids):
            one = {qid: run[qid]} if qid in run else {}
            t, s, _ = from_trec({qid: qrels[qid]}, one, complete=True)
            widths.add(t.shape[1])
            single = all_values(t, s)
            for name, values in single.items():
                np.testing.assert_array_equal(values, full[name][i : i + 1], name)
    assert min(widths) < y_true.shape[1]


@pytest.mark.parametrize(
    ("qrels", "run", "error", "match"),
    [
        ({"q": {"d": 1}}, {"r": {"d": 1.0}}, ValueError, "No query has both"),
        ({"q": {"d": 1}}, {"q": {"d": float("inf")}}, ValueError,
         r"run\['q'\]\['d'\] must be finite"),
        ({"q": {"d": "1"}}, {"q": {"d": 1.0}}, TypeError,
         r"qrels\['q'\]\['d'\] must be a real number \(a relevance grade\)"),
        ({1: {"d": 1}}, {1: {"d": 1.0}}, TypeError, "query ids must be str"),
        ({"q": {2: 1}}, {"q": {"d": 1.0}}, TypeError, "docnos must be str"),
        ({"q": [1]}, {"q": {"d": 1.0}}, TypeError, r"qrels\['q'\] must be a dict"),
        ({"q": {"d": 1}}, 3, TypeError, "run must be a path"),
    ],
)  # fmt: skip
def test_from_trec_errors(qrels, run, error, match):
    with pytest.raises(error, match=match):
        from_trec(qrels, run)


def test_from_trec_complete_must_be_bool():
    with pytest.raises(TypeError, match="complete must be True or False"):
        from_trec({"q": {"d": 1}}, {"q": {"d": 1.0}}, complete="yes")


# --------------------------------------------------------------------------
# Agreement with trec_eval (pytrec_eval), per query, to 1e-12
# --------------------------------------------------------------------------


def random_trec(seed, *, tied, n_queries=12):
    """qrels and run dicts with awkward cases.

    Ties (integer scores from a small range) between docnos whose string
    order is neither numeric nor insertion order; relevant documents the run
    misses; grades -1..4; a query whose judgments are all non-relevant; a
    run query without judgments; a judged query without results.
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        numbers = rng.permutation(200)[:40]
        docs = [f"D{n:0{w}d}" for n, w in zip(numbers, rng.integers(1, 4, 40))]
        grades = rng.choice([-1, 0, 1, 2, 3, 4], size=40,
                            p=[0.1, 0.45, 0.2, 0.1, 0.1, 0.05])  # fmt: skip
        judged = rng.random(40) < 0.6
        qrels[f"q{q}"] = {d: int(g) for d, g, j in zip(docs, grades, judged) if j}
        n_ret = int(rng.integers(1, 30))
        order = rng.permutation(40)[:n_ret]
        scores = rng.integers(0, 5, n_ret) if tied else rng.standard_normal(n_ret)
        run[f"q{q}"] = {docs[j]: float(s) for j, s in zip(order, scores)}
    qrels["q0"] = {d: min(g, 0) for d, g in qrels["q0"].items()}
    qrels["q_judged_only"] = {"D1": 1, "D2": 2}
    run["q_run_only"] = {"D1": 1.0}
    return qrels, run


CUTOFFS = (1, 3, 5, 10, 20)


def trec_eval_values(qrels, run, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    cut = ",".join(map(str, CUTOFFS))
    measures = {f"{m}.{cut}" for m in ("P", "recall", "ndcg_cut", "map_cut", "success")}
    measures |= {"map", "ndcg", "recip_rank", "Rprec"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    return evaluator.evaluate(run)


def package_values(name, y_true, y_score, level, ignore_ties):
    """trec_eval measure ``name`` from the public metric functions."""
    opts = {"average": None, "ignore_ties": ignore_ties, "zero_division": 0.0}
    binary = dict(opts, relevance_threshold=level - 1)
    family, _, k = name.rpartition("_")
    k = int(k) if k.isdigit() else None
    family = family if k else name
    if family in ("ndcg_cut", "ndcg"):
        return ndcg_at_k_score(np.maximum(y_true, 0), y_score, k=k, **opts)
    functions = {"P": precision_at_k_score, "recall": recall_at_k_score,
                 "success": hit_at_k_score, "map_cut": map_at_k_score,
                 "map": map_at_k_score, "recip_rank": mrr_at_k_score}  # fmt: skip
    if family == "Rprec":
        return r_precision_score(y_true, y_score, **binary)
    return functions[family](y_true, y_score, k=k, **binary)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize(("seed", "tied"), [(0, True), (1, True), (2, False)])
def test_pytrec_eval_per_query(seed, tied, level):
    qrels, run = random_trec(seed, tied=tied)
    results = trec_eval_values(qrels, run, level)
    y_true, y_score, qids = from_trec(qrels, run)
    assert qids == sorted(results)  # the same queries are evaluated
    assert "q_run_only" not in qids and "q_judged_only" not in qids
    assert (np.isneginf(y_score) & (y_true > 0)).any()  # unretrieved relevant
    names = sorted(results[qids[0]])
    assert len(names) == 5 * len(CUTOFFS) + 4
    ties_differ = False
    for name in names:
        expected = np.array([results[q][name] for q in qids])
        ours = package_values(name, y_true, y_score, level, ignore_ties=True)
        np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12, err_msg=name)
        average = package_values(name, y_true, y_score, level, ignore_ties=False)
        if tied:
            ties_differ |= not np.allclose(average, expected, rtol=0, atol=1e-12)
        else:  # without ties, the tie-aware value is trec_eval's too
            np.testing.assert_allclose(average, expected, rtol=0, atol=1e-12)
    assert ties_differ == tied


def test_byte_order_mark_and_unicode_whitespace(tmp_path):
    """A UTF-8 BOM (Windows editors) is not part of the first query id, and
    only spaces and tabs separate fields, as in trec_eval."""
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"\xef\xbb\xbfq1 0 d1 1\r\nq1 0 d2 0\r\n")
    run = tmp_path / "run"
    run.write_text("\ufeffq1 Q0 d1 1 2.0 t\nq1\tQ0  d\u00a0x 2 1.0 t\n", "utf-8")
    assert read_trec_qrels(qrels) == {"q1": {"d1": 1, "d2": 0}}
    assert read_trec_run(run) == {"q1": {"d1": 2.0, "d\u00a0x": 1.0}}
    with open(qrels, encoding="utf-8") as text:  # a text-mode file too
        assert read_trec_qrels(text) == {"q1": {"d1": 1, "d2": 0}}


def test_docno_order_is_byte_order_with_long_shared_prefixes():
    """The parser ranks docnos by an 8-byte prefix key, then the rest: check
    it against Python's byte order where prefixes are shared, lengths differ
    and bytes are non-ASCII, and that every docno keeps its own id (the
    string table)."""
    from sklearn_rankk._io.trec import _parse

    rng = np.random.default_rng(3)
    stems = ["doc", "document-0000", "docu", "d", "dé", "DOC", "doc\x7f"]
    docnos = sorted(
        {
            rng.choice(stems) + str(rng.integers(10 ** rng.integers(1, 9)))
            for _ in range(3000)
        }
    )
    rng.shuffle(docnos)
    run = "".join(f"q{i % 7} Q0 {d} 1 0.5 t\n" for i, d in enumerate(docnos))
    parsed = _parse(run=io.BytesIO(run.encode("utf-8")))
    table = parsed.docs.all()
    assert sorted(table) == sorted(docnos)  # one id per docno
    by_bytes = sorted(range(len(table)), key=lambda i: table[i].encode("utf-8"))
    np.testing.assert_array_equal(np.argsort(parsed.doc_rank), by_bytes)


def _write_trec(tmp_path, qrels, run, seed):
    """qrels and run dicts as files, their lines shuffled (a query's lines
    need not be together) with comments and blank lines."""
    rng = np.random.default_rng(seed)
    q_lines = [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]
    r_lines = [
        f"{q} Q0 {d} {i} {s!r} tag{seed}"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    # Shuffled whole lines keep each query's judgments in their order.
    r_lines = [r_lines[i] for i in rng.permutation(len(r_lines))]
    (tmp_path / "qrels").write_text("# judgments\n" + "\n".join(q_lines) + "\n\n")
    (tmp_path / "run").write_text("\n".join(r_lines) + "\n")
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("seed", range(6))
def test_file_join_equals_the_dict_join(tmp_path, seed):
    """The compiled parser joins files query by query; the dicts go through
    numpy's sorts: the same segments for every option of from_trec (the
    dicts are the files' own lines, so both see one collection)."""
    from sklearn_rankk._io.trec import trec_rows

    qrels, run = random_trec(seed, tied=seed % 2 == 0)
    q_path, r_path = _write_trec(tmp_path, qrels, run, seed)
    options = [
        dict(complete=c, mark_unjudged=m, max_retrieved=x, judged_only=j)
        for c in (False, True)
        for m in (True, False)
        for x in (None, 0, 1, 3, 100)
        for j in (False, True)
    ]
    for option in options:
        got = trec_rows(q_path, r_path, **option)
        want = trec_rows(read_trec_qrels(q_path), read_trec_run(r_path), **option)
        assert got.qids == want.qids, option
        assert got.unretrieved == want.unretrieved, option
        np.testing.assert_array_equal(got.offsets, want.offsets, str(option))
        np.testing.assert_array_equal(got.y_score, want.y_score, str(option))
        np.testing.assert_array_equal(got.y_true, want.y_true, str(option))
        assert got.y_true.dtype == want.y_true.dtype
    assert trec_rows(q_path, r_path).runid == f"tag{seed}"


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("q 0 a 1\nq 0 b 1\nr 0 b 1\nq 0 a 0\n", "q Q0 a 1 1 t\n",
         r"qrels:4: document 'a' is judged twice for query 'q'"),
        ("q 0 a 1\n", "p Q0 x 1 1 t\nq Q0 a 1 1 t\np Q0 y 1 1 t\np Q0 x 1 2 t\n",
         r"run:4: document 'x' is listed twice for query 'p'"),
        ("q 0 a 1\nq 0 a 1\n", "q Q0 a 1 1 t\nq Q0 a 1 1 t\n",
         r"qrels:2: document 'a' is judged twice"),
        ("q 0 a 1\n", "r Q0 a 1 1 t\n", "No query has both results"),
        ("q 0 a 1\n", "q Q0 a 1 x t\n", r"run:1: score 'x' is not a finite"),
        ("q Q0 a 1 1 t\n", "q 0 a 1\n", r"qrels:1: .* It looks like a run file"),
    ],
)  # fmt: skip
def test_file_join_errors_name_file_and_line(tmp_path, qrels, run, message):
    """Duplicates (the earliest second line, qrels first, in any query, also
    one not evaluated), no common query, malformed lines."""
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    with pytest.raises(ValueError, match=message):
        from_trec(tmp_path / "qrels", tmp_path / "run")
