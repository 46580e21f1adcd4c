# TREC files in the kernel (included by _kernel.pyx; trec.hpp): qrels and
# runs parsed and joined into segments (numpy arrays, or array.array for the
# numpy-free command line), and trec_eval's per-query lines, relstrings and
# counts.

cdef extern from "<string_view>" namespace "std" nogil:
    cdef cppclass string_view:
        const char* data()
        size_t size()

cdef extern from "trec.hpp" namespace "rankk" nogil:
    cdef cppclass StringTable:
        vector[string_view] strings
        vector[int64_t] first_line
        vector[int64_t] ranks()

    cdef cppclass TrecEntries:
        vector[int64_t] qid, doc, line, grade
        vector[double] score
        string tag
        int64_t error_line
        string error

    void c_parse_trec "rankk::parse_trec"(
        const char* data, size_t size, int kind, StringTable& qids,
        StringTable& docs, TrecEntries& out) except +
    int64_t first_invalid_utf8_line "rankk::first_invalid_utf8_line"(
        const unsigned char* s, size_t n)

    cdef cppclass TrecJoin:
        StringTable qids
        TrecEntries qrels_status, run_status
        vector[int64_t] row_qid, left_out
        int64_t n_judged_queries, n_run_queries
        int dup_kind
        int64_t dup_line, dup_qid
        string_view dup_doc
        cbool parse(int kind, const char* data, size_t size) except +
        void select(cbool complete) except +
        size_t capacity()
        int64_t fill(const char* qrels_data, const char* run_data, cbool mark_unjudged,
                     int64_t max_retrieved, cbool judged_only, int64_t* y_true,
                     double* y_score, int64_t* offsets) except +


cdef object _int64_array(const vector[int64_t]& v):
    out = np.empty(v.size(), dtype=np.int64)
    if v.size():
        memcpy(<void*> <size_t> out.ctypes.data, v.data(), v.size() * sizeof(int64_t))
    return out


cdef object _float64_array(const vector[double]& v):
    out = np.empty(v.size(), dtype=np.float64)
    if v.size():
        memcpy(<void*> <size_t> out.ctypes.data, v.data(), v.size() * sizeof(double))
    return out


cdef object _table(StringTable& table):
    """A string table as (one bytes blob, int64 offsets, first lines)."""
    cdef size_t i, n = table.strings.size(), total = 0
    for i in range(n):
        total += table.strings[i].size()
    blob = bytearray(total)
    offsets = np.empty(n + 1, dtype=np.int64)
    cdef char* b = blob
    cdef int64_t[::1] off = offsets
    cdef size_t at = 0
    off[0] = 0
    for i in range(n):
        memcpy(b + at, table.strings[i].data(), table.strings[i].size())
        at += table.strings[i].size()
        off[i + 1] = at
    return bytes(blob), offsets, _int64_array(table.first_line)


def parse_trec_files(qrels, run):
    """Parse a qrels file and a run file (their bytes; either may be None).

    Returns a dict: ``"qrels"`` and ``"run"`` (None, an error ``(line,
    message)``, or the entries: qid and doc ids, grades or scores, line
    numbers, and for a run the last line's tag), and the shared string
    tables ``"qids"`` and ``"docs"`` as ``(blob, offsets, first_line)``, with
    each docno's rank in byte order (``"doc_rank"``) and each qid's
    (``"qid_rank"``).
    """
    cdef StringTable qids, docs
    cdef TrecEntries q_out, r_out
    cdef const unsigned char[::1] buf
    result = {"qrels": None, "run": None}
    for name, data, kind in (("qrels", qrels, 0), ("run", run, 1)):
        if data is None:
            continue
        buf = data
        n = buf.shape[0]
        bad = first_invalid_utf8_line(&buf[0] if n else NULL, n)
        if bad:
            result[name] = ("utf-8", bad)
            return result
        out = &q_out if kind == 0 else &r_out
        with nogil:
            c_parse_trec(<const char*> &buf[0] if n else NULL, n, kind, qids, docs,
                         out[0])
        if out.error_line:
            result[name] = ("error", out.error_line, out.error.decode("utf-8", "replace"))
            return result
        entries = {
            "qid": _int64_array(out.qid),
            "doc": _int64_array(out.doc),
            "line": _int64_array(out.line),
        }
        if kind == 0:
            entries["grade"] = _int64_array(out.grade)
        else:
            entries["score"] = _float64_array(out.score)
            entries["tag"] = out.tag.decode("utf-8")
        result[name] = entries
    result["qids"] = _table(qids)
    result["docs"] = _table(docs)
    result["qid_rank"] = _int64_array(qids.ranks())
    result["doc_rank"] = _int64_array(docs.ranks())
    return result


cdef str _view_str(string_view v):
    return v.data()[:v.size()].decode("utf-8")


def join_trec_files(qrels, run, bint complete, bint mark_unjudged, max_retrieved,
                    bint judged_only, bint lite=False):
    """A qrels file and a run (their bytes) joined query by query in C++.

    Returns a dict: ``"y_true"`` (int64), ``"y_score"`` (float64) and
    ``"offsets"`` (int64): one segment per query (see trec.hpp's
    ``TrecJoin::fill``), written by the parser into these arrays, not
    copied; ``"qids"`` (the query of each segment), ``"left_out"`` (judged
    queries without results, not evaluated) and ``"runid"``. Or, on a bad
    file, a tuple: ``("utf-8", kind, line)``, ``("error", kind, line,
    message)``, ``("duplicate", kind, line, docno, qid)`` or ``("none",
    run queries, judged queries)``; kind is ``"qrels"`` or ``"run"``.
    ``lite``: the three arrays are ``array.array`` (``"q"``, ``"d"``,
    ``"q"``) instead of numpy arrays, and numpy is not imported.
    """
    cdef TrecJoin join
    cdef const unsigned char[::1] q_buf = qrels
    cdef const unsigned char[::1] r_buf = run
    cdef const char* q_data = <const char*> &q_buf[0] if q_buf.shape[0] else NULL
    cdef const char* r_data = <const char*> &r_buf[0] if r_buf.shape[0] else NULL
    cdef size_t q_n = q_buf.shape[0], r_n = r_buf.shape[0]
    cdef int64_t bad
    cdef int kind
    cdef cbool ok
    cdef TrecEntries* status
    for kind, name in ((0, "qrels"), (1, "run")):
        bad = first_invalid_utf8_line(<const unsigned char*> (q_data if kind == 0 else r_data),
                                      q_n if kind == 0 else r_n)
        if bad:
            return ("utf-8", name, bad)
        with nogil:
            ok = join.parse(kind, q_data if kind == 0 else r_data, q_n if kind == 0 else r_n)
        if not ok:
            status = &join.qrels_status if kind == 0 else &join.run_status
            return ("error", name, status.error_line,
                    status.error.decode("utf-8", "replace"))
    join.select(complete)
    cdef size_t n_rows = join.row_qid.size(), cap = join.capacity()
    cdef size_t room = cap if cap else 1
    cdef int64_t* tp
    cdef double* sp
    cdef int64_t* op
    if lite:
        y_true = carray.clone(_INT64_TEMPLATE, room, zero=False)
        y_score = carray.clone(_FLOAT64_TEMPLATE, room, zero=False)
        offsets = carray.clone(_INT64_TEMPLATE, n_rows + 1, zero=False)
        tp = <int64_t*> (<carray.array> y_true).data.as_voidptr
        sp = <double*> (<carray.array> y_score).data.as_voidptr
        op = <int64_t*> (<carray.array> offsets).data.as_voidptr
    else:
        y_true = np.empty(room, dtype=np.int64)
        y_score = np.empty(room, dtype=np.float64)
        offsets = np.empty(n_rows + 1, dtype=np.int64)
        tp = <int64_t*> <size_t> y_true.ctypes.data
        sp = <double*> <size_t> y_score.ctypes.data
        op = <int64_t*> <size_t> offsets.ctypes.data
    cdef int64_t m = -1 if max_retrieved is None else max_retrieved
    cdef int64_t n_out
    with nogil:
        n_out = join.fill(q_data, r_data, mark_unjudged, m, judged_only, tp, sp, op)
    if n_out < 0:
        return ("duplicate", "qrels" if join.dup_kind == 0 else "run", join.dup_line,
                _view_str(join.dup_doc), _view_str(join.qids.strings[join.dup_qid]))
    if n_rows == 0:
        return ("none", join.n_run_queries, join.n_judged_queries)
    if lite:
        carray.resize(y_true, n_out)
        carray.resize(y_score, n_out)
    else:
        y_true, y_score = y_true[:n_out], y_score[:n_out]
    return {
        "y_true": y_true,
        "y_score": y_score,
        "offsets": offsets,
        "qids": [_view_str(join.qids.strings[q]) for q in join.row_qid],
        "left_out": [_view_str(join.qids.strings[q]) for q in join.left_out],
        "runid": join.run_status.tag.decode("utf-8"),
    }


cdef extern from "<stdio.h>" nogil:
    int snprintf(char* s, size_t n, const char* fmt, ...)


def format_lines(list qids, list heads, list columns):
    """trec_eval's per-query lines, ``head + qid + "\\t" + value + "\\n"``,
    query by query (outer) and column by column (inner), as one bytes.

    ``columns``: one per head, each a float64 array (printed ``%6.4f``, as
    trec_eval's printf does), an int64 array (printed as an integer) or a
    list of str (printed as given); numpy arrays or ``array.array`` of
    type ``"d"`` or ``"q"``.
    """
    cdef Py_ssize_t n_rows = len(qids), n_cols = len(heads), i, j
    cdef string out
    cdef char buf[64]
    cdef int width
    cdef double v
    cdef vector[int] kind
    cdef vector[const double*] floats
    cdef vector[const int64_t*] ints
    cdef vector[string] encoded_qids, encoded_heads
    kept, texts = [], []
    for q in qids:
        encoded_qids.push_back(q.encode("utf-8") + b"\t")
    for h in heads:
        encoded_heads.push_back(h.encode("utf-8"))
    for c in columns:
        if len(c) != n_rows:
            raise ValueError("every column must have one value per query.")
        if isinstance(c, list):
            kind.push_back(2)
            texts.append([t.encode("utf-8") for t in c])
            c = None
        elif isinstance(c, array.array):  # the command line's numpy-free columns
            if c.typecode not in ("q", "d"):
                raise TypeError("an array.array column must be of type 'q' or 'd'.")
            # (not one push_back of a conditional: Cython 3 gives its temporary
            # the type of kind.back(), a reference)
            if c.typecode == "q":
                kind.push_back(1)
            else:
                kind.push_back(0)
            texts.append(None)
        elif c.dtype == np.int64:
            kind.push_back(1)
            c = np.ascontiguousarray(c)
            texts.append(None)
        else:
            kind.push_back(0)
            c = np.ascontiguousarray(c, dtype=np.float64)
            texts.append(None)
        kept.append(c)
        if c is None or not n_rows:
            address = 0
        elif isinstance(c, array.array):
            address = c.buffer_info()[0]
        else:
            address = c.ctypes.data
        floats.push_back(<const double*> <size_t> address if kind.back() == 0 else NULL)
        ints.push_back(<const int64_t*> <size_t> address if kind.back() == 1 else NULL)
    cdef bytes text
    for i in range(n_rows):
        for j in range(n_cols):
            out.append(encoded_heads[j])
            out.append(encoded_qids[i])
            if kind[j] == 0:
                v = floats[j][i]
                if v == v:
                    width = snprintf(buf, sizeof(buf), "%6.4f", v)
                    out.append(buf, width)
                else:
                    text = ("%6.4f" % v).encode("ascii")
                    out.append(<const char*> text, len(text))
            elif kind[j] == 1:
                width = snprintf(buf, sizeof(buf), "%lld", <long long> ints[j][i])
                out.append(buf, width)
            else:
                text = texts[j][i]
                out.append(<const char*> text, len(text))
            out.push_back(b"\n")
    return out.data()[:out.size()]


def trec_relstrings(const int64_t[::1] y_true, const double[::1] y_score,
                    const int64_t[::1] offsets, Py_ssize_t length):
    """trec_eval's relstring of each segment: one character per retrieved
    document (score above -inf) among the first ``length`` in trec_eval's
    order, where tied documents come by docno descending (the segments hold
    them ascending: each run of equal scores is read backwards). A grade
    0-9 is itself, above 9 ``>``, -1 (never judged) ``-``, -2 (pooled, not
    judged) ``.``, any other negative grade ``<``."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, r, i, j, a, b, end, taken
    cdef int64_t g
    cdef string text
    out = []
    for r in range(n_rows):
        text.clear()
        a = offsets[r]
        end = offsets[r + 1]
        taken = 0
        while a < end and taken < length and y_score[a] > -HUGE_VAL:
            b = a + 1
            while b < end and y_score[b] == y_score[a]:
                b += 1
            j = b - 1
            while j >= a and taken < length:
                g = y_true[j]
                if g > 9:
                    text.push_back(b">")
                elif g >= 0:
                    text.push_back(<char> (48 + g))
                elif g == -1:
                    text.push_back(b"-")
                elif g == -2:
                    text.push_back(b".")
                else:
                    text.push_back(b"<")
                taken += 1
                j -= 1
            a = b
        out.append(text.data()[:text.size()].decode("ascii"))
    return out


def trec_counts(const int64_t[::1] y_true, const double[::1] y_score,
                const int64_t[::1] offsets, int64_t level, bint lite=False):
    """trec_eval's counts of each segment: retrieved (score above -inf),
    relevant (grade >= level), relevant retrieved, and judged (grade >= 0)
    non-relevant retrieved (int64 numpy arrays; with ``lite``,
    ``array.array`` of type ``"q"``)."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, r, i
    if lite:
        ret, rel, rel_ret, nonrel_ret = (
            carray.clone(_INT64_TEMPLATE, n_rows, zero=True) for _ in range(4)
        )
    else:
        ret = np.zeros(n_rows, dtype=np.int64)
        rel = np.zeros(n_rows, dtype=np.int64)
        rel_ret = np.zeros(n_rows, dtype=np.int64)
        nonrel_ret = np.zeros(n_rows, dtype=np.int64)
    cdef int64_t[::1] c_ret = ret, c_rel = rel, c_rel_ret = rel_ret
    cdef int64_t[::1] c_nonrel_ret = nonrel_ret
    cdef bint retrieved, relevant
    with nogil:
        for r in range(n_rows):
            for i in range(offsets[r], offsets[r + 1]):
                retrieved = y_score[i] > -HUGE_VAL
                relevant = y_true[i] >= level
                c_ret[r] += retrieved
                c_rel[r] += relevant
                c_rel_ret[r] += relevant and retrieved
                c_nonrel_ret[r] += (not relevant) and y_true[i] >= 0 and retrieved
    return ret, rel, rel_ret, nonrel_ret
