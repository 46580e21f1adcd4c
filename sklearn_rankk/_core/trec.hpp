/* TREC qrels and run files, parsed at C speed.
 *
 * A file's bytes are split into lines and fields exactly as the Python
 * readers did (and trec_eval does): fields are separated by spaces and tabs
 * only; blank lines and lines whose first field starts with '#' are skipped;
 * a UTF-8 byte-order mark before the first line is dropped. Query ids and
 * docnos are interned once in string tables shared by the files of one call,
 * so that a run and its qrels use the same integer ids; the rest of the work
 * (joining, ordering, segments) happens on integer arrays.
 *
 * Numbers: a score must be a finite ASCII decimal ([+-]digits[.digits]
 * [e[+-]digits]), so that C's atof (trec_eval) and Python's float() read the
 * same value; a grade an ASCII integer that fits in 64 bits. Anything else is
 * an error naming the line.
 */
#ifndef SKLEARN_RANKK_TREC_HPP
#define SKLEARN_RANKK_TREC_HPP

#include <algorithm>
#include <cerrno>
#if __has_include(<charconv>)
#include <charconv>
#endif
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rankk {

struct StringTable {
    // Open addressing, linear probing, one 8-byte slot per entry: the
    // string's id + 1 in the high 32 bits (0: empty), the low 32 bits of its
    // hash in the low ones (compared before the strings, and where a slot
    // goes when the table grows). A million docnos: 16 MB, a cache miss or
    // two each. The slots are only needed while parsing: ranks(), called
    // once the files are read, releases them.
    mutable std::vector<uint64_t> slots;
    std::vector<std::string_view> strings;
    std::vector<int64_t> first_line;  // left empty: not read by the package

    static uint64_t hash(std::string_view s) {
        uint64_t h = 1469598103934665603ull;  // FNV-1a, then a final mix
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        return h;
    }

    // Room for n strings without growing (at most half full).
    void reserve(size_t n) {
        size_t want = 16;
        while (want < 2 * n) want *= 2;
        if (want > slots.size()) rehash(want);
    }

    void rehash(size_t n_slots) {
        std::vector<uint64_t> grown(n_slots, 0);
        const size_t mask = n_slots - 1;
        for (const uint64_t slot : slots) {
            if (!slot) continue;
            size_t j = (slot & 0xffffffffull) & mask;
            while (grown[j]) j = (j + 1) & mask;
            grown[j] = slot;
        }
        slots.swap(grown);
    }

    int64_t add(std::string_view s, int64_t /* line */) {
        if (2 * (strings.size() + 1) > slots.size())
            rehash(std::max<size_t>(16, 2 * slots.size()));
        const uint64_t h = hash(s) & 0xffffffffull;
        const size_t mask = slots.size() - 1;
        size_t j = h & mask;
        while (slots[j]) {
            const uint64_t slot = slots[j];
            if ((slot & 0xffffffffull) == h && strings[(slot >> 32) - 1] == s)
                return (int64_t)(slot >> 32) - 1;
            j = (j + 1) & mask;
        }
        const int64_t id = (int64_t)strings.size();
        slots[j] = ((uint64_t)(id + 1) << 32) | h;
        strings.push_back(s);
        return id;
    }

    // Each string's rank in byte order (strcmp, as trec_eval compares docnos).
    // Sorted by an integer key of each string's first 8 bytes (big-endian:
    // integer order is byte order), the bytes after them compared only
    // between strings with the same key.
    std::vector<int64_t> ranks() const {
        std::vector<uint64_t>().swap(slots);  // parsing is over: no more look-ups
        const size_t n = strings.size();
        std::vector<std::pair<uint64_t, int64_t>> order(n);
        for (size_t i = 0; i < n; ++i) {
            uint64_t key = 0;
            const std::string_view s = strings[i];
            for (size_t b = 0; b < 8; ++b)
                key = (key << 8) | (b < s.size() ? (unsigned char)s[b] : 0u);
            order[i] = {key, (int64_t)i};
        }
        std::sort(order.begin(), order.end(),
                  [this](const std::pair<uint64_t, int64_t> &a,
                         const std::pair<uint64_t, int64_t> &b) {
                      if (a.first != b.first) return a.first < b.first;
                      return strings[a.second] < strings[b.second];
                  });
        std::vector<int64_t> rank(n);
        for (size_t r = 0; r < n; ++r) rank[order[r].second] = (int64_t)r;
        return rank;
    }
};

struct TrecEntries {
    std::vector<int64_t> qid, doc, line;
    std::vector<double> score;   // runs
    std::vector<int64_t> grade;  // qrels
    std::string tag;             // runs: the last line's tag (trec_eval's runid)
    int64_t error_line = 0;      // 0: no error
    std::string error;           // the message after "file:line: "
};

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A finite ASCII decimal number, the whole field.
inline bool parse_decimal(std::string_view f, double &out) {
    size_t i = 0, n = f.size();
    if (i < n && (f[i] == '+' || f[i] == '-')) ++i;
    size_t digits = 0;
    while (i < n && is_digit(f[i])) { ++i; ++digits; }
    if (i < n && f[i] == '.') {
        ++i;
        while (i < n && is_digit(f[i])) { ++i; ++digits; }
    }
    if (digits == 0) return false;
    if (i < n && (f[i] == 'e' || f[i] == 'E')) {
        ++i;
        if (i < n && (f[i] == '+' || f[i] == '-')) ++i;
        size_t exp_digits = 0;
        while (i < n && is_digit(f[i])) { ++i; ++exp_digits; }
        if (exp_digits == 0) return false;
    }
    if (i != n) return false;
#if defined(__cpp_lib_to_chars)
    // Correctly rounded, as strtod; locale-free and without a copy.
    const char *first = f.data() + (f[0] == '+' ? 1 : 0);
    const auto parsed = std::from_chars(first, f.data() + n, out);
    if (parsed.ec == std::errc() && parsed.ptr == f.data() + n) return std::isfinite(out);
    if (parsed.ec == std::errc::result_out_of_range && parsed.ptr == f.data() + n) {
        // Overflow is not finite; underflow is read as strtod reads it.
    } else {
        return false;
    }
#endif
    std::string copy(f);  // strtod needs a terminated string; the grammar is
    char *end = nullptr;  // locale-free ASCII, read as C's "C" locale does
    errno = 0;
    out = std::strtod(copy.c_str(), &end);
    return std::isfinite(out);
}

// An ASCII integer that fits in 64 bits, the whole field. Returns 0 on
// success, 1 when it is not an integer, 2 when it is out of range.
inline int parse_integer(std::string_view f, int64_t &out) {
    size_t i = 0, n = f.size();
    bool neg = false;
    if (i < n && (f[i] == '+' || f[i] == '-')) { neg = f[i] == '-'; ++i; }
    if (i == n) return 1;
    uint64_t v = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; ++i) {
        if (!is_digit(f[i])) return 1;
        uint64_t d = (uint64_t)(f[i] - '0');
        if (v > (limit - d) / 10) return 2;
        v = v * 10 + d;
    }
    out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

inline std::string quoted(std::string_view s) {
    // A short repr-like rendering for messages (the caller decodes properly).
    return "'" + std::string(s) + "'";
}

// The number of lines of a file (one more than its newlines).
inline size_t count_lines(const char *data, size_t size) {
    size_t n_lines = 1;
    for (const char *p = data, *stop = data + size;
         p < stop && (p = (const char *)std::memchr(p, '\n', stop - p)); ++p)
        ++n_lines;
    return n_lines;
}

/* Each line of a file, split and checked. kind: 0 qrels (qid iter docno
 * rel), 1 run (qid Q0 docno rank score tag [...]). Calls
 * line(lineno, qid, docno, grade, score, tag) for each line with fields (a
 * qrels line's score and a run line's grade are 0); returns false after
 * setting out's error at the first malformed line. */
template <class Line>
inline bool for_each_trec_line(const char *data, size_t size, int kind, TrecEntries &out,
                               Line &&line) {
    size_t pos = 0;
    if (size >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        pos = 3;
    int64_t lineno = 0;
    std::string_view fields[7];
    while (pos < size) {
        ++lineno;
        const char *nl = (const char *)std::memchr(data + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - data) : size;
        size_t next = nl ? end + 1 : size;
        // Split on spaces and tabs; a trailing \r is whitespace too.
        int n_fields = 0, total = 0;
        size_t i = pos;
        while (i < end) {
            while (i < end && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r')) ++i;
            if (i >= end) break;
            size_t start = i;
            while (i < end && data[i] != ' ' && data[i] != '\t' &&
                   !(data[i] == '\r' && i + 1 == end))
                ++i;
            if (n_fields < 7) fields[n_fields++] = std::string_view(data + start, i - start);
            ++total;
        }
        pos = next;
        if (total == 0 || fields[0][0] == '#') continue;
        if (kind == 0) {
            if (total != 4) {
                out.error_line = lineno;
                out.error = "expected 4 fields 'qid iter docno rel'; got " +
                            std::to_string(total) + ".";
                return false;
            }
            int64_t g = 0;
            int status = parse_integer(fields[3], g);
            if (status) {
                out.error_line = lineno;
                out.error = "relevance " + quoted(fields[3]) +
                            (status == 1 ? " is not an integer."
                                         : " is out of range (a 64-bit integer).");
                return false;
            }
            line(lineno, fields[0], fields[2], g, 0.0, std::string_view());
        } else {
            if (total < 6) {
                out.error_line = lineno;
                out.error = "expected 6 fields 'qid Q0 docno rank score tag'; got " +
                            std::to_string(total) + ".";
                return false;
            }
            double v = 0.0;
            if (!parse_decimal(fields[4], v)) {
                out.error_line = lineno;
                out.error = "score " + quoted(fields[4]) + " is not a finite number.";
                return false;
            }
            line(lineno, fields[0], fields[2], (int64_t)0, v, fields[5]);
        }
    }
    return true;
}

/* Parse one file into out, with query ids and docnos interned in the string
 * tables. kind: 0 qrels, 1 run. */
inline void parse_trec(const char *data, size_t size, int kind, StringTable &qids,
                       StringTable &docs, TrecEntries &out) {
    // Room for one entry per line, counted first: the vectors never grow
    // (growing doubles them, and copies: three times the memory at peak).
    const size_t n_lines = count_lines(data, size);
    out.qid.reserve(n_lines);
    out.doc.reserve(n_lines);
    out.line.reserve(n_lines);
    if (kind == 0) out.grade.reserve(n_lines);
    if (kind == 1) out.score.reserve(n_lines);
    // Room for a docno every other line: runs of a large collection hold
    // nearly one per line (the table then grows once), runs that repeat
    // docnos across queries far fewer.
    docs.reserve(docs.strings.size() + n_lines / 2);
    // Consecutive lines mostly share their query: its id is looked up once.
    std::string_view last_qid, last_tag;
    int64_t last_qid_id = -1;
    for_each_trec_line(
        data, size, kind, out,
        [&](int64_t lineno, std::string_view qid, std::string_view doc, int64_t g, double v,
            std::string_view tag) {
            if (last_qid_id < 0 || qid != last_qid) {
                last_qid_id = qids.add(qid, lineno);
                last_qid = qid;
            }
            out.qid.push_back(last_qid_id);
            out.doc.push_back(docs.add(doc, lineno));
            if (kind == 0) {
                out.grade.push_back(g);
            } else {
                out.score.push_back(v);
                last_tag = tag;
            }
            out.line.push_back(lineno);
        });
    if (kind == 1 && !out.error_line) out.tag.assign(last_tag.data(), last_tag.size());
}

/* A qrels file and a run joined query by query, as trec_eval joins them:
 * the files are parsed into compact entries (a docno is a view of the
 * file's bytes, never interned: only the query ids are), grouped by query,
 * and each query's documents are matched through a small hash table of its
 * own, which stays in cache. The result is written straight into the
 * caller's arrays (one segment per query), so nothing is copied after. */
struct TrecJoin {
    struct Judgment {
        std::string_view doc;
        int64_t grade;
        int64_t qid;
    };
    struct Result {
        const char *doc;
        uint32_t len;
        uint32_t qid;
        double score;
    };
    StringTable qids;
    std::vector<Judgment> qrels;
    std::vector<Result> run;
    TrecEntries qrels_status, run_status;  // a parse error, the run's tag
    // After select(): the query of each row, in trec_eval's order (query
    // ids in byte order), and the judged queries left out.
    std::vector<int64_t> row_qid, left_out;
    int64_t n_judged_queries = 0, n_run_queries = 0;
    // After fill(): a document twice for one query (kind 0 qrels, 1 run;
    // -1 none), at its second line; the earliest such line of the first
    // kind that has one.
    int dup_kind = -1;
    int64_t dup_line = 0, dup_qid = -1;
    std::string_view dup_doc;

    // Grouped by query: entries of query q are order[start[q]:start[q + 1]],
    // in file order.
    std::vector<uint32_t> qrels_order, run_order;
    std::vector<size_t> qrels_start, run_start;
    std::vector<int64_t> qid_rank;

    // Parse one file (kind 0: qrels, 1: run); false on a malformed line
    // (qrels_status or run_status says where and why).
    bool parse(int kind, const char *data, size_t size) {
        std::string_view last_qid;
        int64_t last_id = -1;
        auto qid_of = [&](int64_t lineno, std::string_view qid) {
            if (last_id < 0 || qid != last_qid) {
                last_id = qids.add(qid, lineno);
                last_qid = qid;
            }
            return last_id;
        };
        const size_t n_lines = count_lines(data, size);
        if (n_lines >= (size_t)UINT32_MAX)
            throw std::length_error("more than 4 billion lines in a TREC file");
        if (kind == 0) {
            qrels.reserve(n_lines);
            return for_each_trec_line(
                data, size, 0, qrels_status,
                [&](int64_t lineno, std::string_view qid, std::string_view doc, int64_t g,
                    double, std::string_view) {
                    qrels.push_back({doc, g, qid_of(lineno, qid)});
                });
        }
        std::string_view last_tag;
        run.reserve(n_lines);
        const bool ok = for_each_trec_line(
            data, size, 1, run_status,
            [&](int64_t lineno, std::string_view qid, std::string_view doc, int64_t, double v,
                std::string_view tag) {
                if (doc.size() >= (size_t)UINT32_MAX)
                    throw std::length_error("a docno of over 4 GB");
                run.push_back(
                    {doc.data(), (uint32_t)doc.size(), (uint32_t)qid_of(lineno, qid), v});
                last_tag = tag;
            });
        if (ok) run_status.tag.assign(last_tag.data(), last_tag.size());
        return ok;
    }

    template <class Entries, class QidOf>
    static void group(const Entries &entries, size_t n_qids, QidOf qid_of,
                      std::vector<uint32_t> &order, std::vector<size_t> &start) {
        start.assign(n_qids + 1, 0);
        for (const auto &e : entries) ++start[qid_of(e) + 1];
        for (size_t q = 0; q < n_qids; ++q) start[q + 1] += start[q];
        std::vector<size_t> at(start.begin(), start.end() - 1);
        order.resize(entries.size());
        for (size_t i = 0; i < entries.size(); ++i) order[at[qid_of(entries[i])]++] = (uint32_t)i;
    }

    // The queries evaluated: those with judgments and results (with
    // complete: every query with judgments), in byte order of their ids.
    void select(bool complete) {
        const size_t n_qids = qids.strings.size();
        group(qrels, n_qids, [](const Judgment &e) { return (size_t)e.qid; }, qrels_order,
              qrels_start);
        group(run, n_qids, [](const Result &e) { return (size_t)e.qid; }, run_order,
              run_start);
        qid_rank = qids.ranks();
        std::vector<int64_t> by_rank(n_qids);
        for (size_t q = 0; q < n_qids; ++q) by_rank[qid_rank[q]] = (int64_t)q;
        for (const int64_t q : by_rank) {
            const bool judged = qrels_start[q + 1] > qrels_start[q];
            const bool retrieved = run_start[q + 1] > run_start[q];
            n_judged_queries += judged;
            n_run_queries += retrieved;
            if (judged && (retrieved || complete))
                row_qid.push_back(q);
            else if (judged)
                left_out.push_back(q);
        }
    }

    // Room the segments need at most: every result, every judgment.
    size_t capacity() const { return run.size() + qrels.size(); }

    void duplicate(int kind, const char *base, const char *at, std::string_view doc,
                   int64_t qid) {
        if (dup_kind >= 0 && (kind > dup_kind || (kind == dup_kind && at >= dup_doc.data())))
            return;
        dup_kind = kind;
        dup_doc = doc;
        dup_qid = qid;
        dup_line = 1 + (int64_t)std::count(base, at, '\n');
    }

    /* The segments of the selected queries: each query's results by score
     * descending, tied ones by docno ascending (max_retrieved >= 0: only
     * the first max_retrieved in trec_eval's order, score descending and
     * tied ones by docno descending; judged_only: only those with a
     * judgment >= 0), then its judgments (mark_unjudged: of grade >= 0;
     * else > 0) that are not among them, in file order, with score -inf.
     * Grades: a result without a judgment -1 (mark_unjudged) or 0; a
     * negative judgment -2 (mark_unjudged) or itself. Returns the number
     * of entries written, or -1 when a document is listed twice for one
     * query (dup_*). Every query is checked for duplicates, also those
     * not evaluated, as trec_eval reads whole files. */
    int64_t fill(const char *qrels_data, const char *run_data, bool mark_unjudged,
                 int64_t max_retrieved, bool judged_only, int64_t *y_true, double *y_score,
                 int64_t *offsets) {
        const size_t n_qids = qids.strings.size();
        std::vector<uint8_t> is_row(n_qids, 0);
        for (const int64_t q : row_qid) is_row[q] = 1;
        std::vector<uint32_t> slots;           // docno hash: local index + 1
        std::vector<uint32_t> hashes;          // of each result of the query
        std::vector<int64_t> grade;            // of each result of the query
        std::vector<uint8_t> kept, matched;    // results kept, judgments matched
        struct Ranked {
            uint64_t score, prefix;
            uint32_t index;
        };
        std::vector<Ranked> ranked;
        int64_t n = 0;
        offsets[0] = 0;
        size_t row = 0;
        auto slot_of = [&](std::string_view doc, uint32_t h, size_t mask,
                           auto &&doc_at) -> size_t {
            size_t j = h & mask;
            while (slots[j] && !(hashes[slots[j] - 1] == h && doc_at(slots[j] - 1) == doc))
                j = (j + 1) & mask;
            return j;
        };
        // Queries in row order first (their segments are written in that
        // order), then the others (checked for duplicates only).
        std::vector<int64_t> queries(row_qid);
        for (size_t q = 0; q < n_qids; ++q)
            if (!is_row[q]) queries.push_back((int64_t)q);
        for (const int64_t q : queries) {
            const uint32_t *r_ids = run_order.data() + run_start[q];
            const size_t n_r = run_start[q + 1] - run_start[q];
            const uint32_t *j_ids = qrels_order.data() + qrels_start[q];
            const size_t n_j = qrels_start[q + 1] - qrels_start[q];
            auto run_doc = [&](size_t i) {
                const Result &e = run[r_ids[i]];
                return std::string_view(e.doc, e.len);
            };
            // The run's documents of the query, hashed; a second one of a
            // docno is a duplicate.
            size_t size = 16;
            while (size < 2 * std::max(n_r, n_j)) size *= 2;
            const size_t mask = size - 1;
            slots.assign(size, 0);
            hashes.resize(std::max(n_r, n_j));
            for (size_t i = 0; i < n_r; ++i) {
                const std::string_view doc = run_doc(i);
                const uint32_t h = (uint32_t)StringTable::hash(doc);
                hashes[i] = h;
                const size_t j = slot_of(doc, h, mask, run_doc);
                if (slots[j])
                    duplicate(1, run_data, doc.data(), doc, q);
                else
                    slots[j] = (uint32_t)i + 1;
            }
            if (!is_row[q]) {
                // Judgments: their own duplicates (the run's table is no
                // longer needed).
                auto judged_doc = [&](size_t i) { return qrels[j_ids[i]].doc; };
                slots.assign(size, 0);
                for (size_t i = 0; i < n_j; ++i) {
                    const std::string_view doc = judged_doc(i);
                    const uint32_t h = (uint32_t)StringTable::hash(doc);
                    hashes[i] = h;
                    const size_t j = slot_of(doc, h, mask, judged_doc);
                    if (slots[j])
                        duplicate(0, qrels_data, doc.data(), doc, q);
                    else
                        slots[j] = (uint32_t)i + 1;
                }
                continue;
            }
            // Results in rank order: score descending, docno ascending. Sorted
            // on integer keys: the score's bits made to order as the score
            // (-0 as 0: equal scores), then the docno's first 8 bytes (big-
            // endian: integer order is byte order), the whole docnos
            // compared only where both keys are equal.
            ranked.resize(n_r);
            for (size_t i = 0; i < n_r; ++i) {
                const Result &e = run[r_ids[i]];
                const double v = e.score == 0.0 ? 0.0 : e.score;
                uint64_t bits;
                std::memcpy(&bits, &v, 8);
                bits = (bits >> 63) ? ~bits : bits | (1ull << 63);
                uint64_t prefix = 0;
                for (size_t b = 0; b < 8; ++b)
                    prefix = (prefix << 8) | (b < e.len ? (unsigned char)e.doc[b] : 0u);
                ranked[i] = {~bits, prefix, (uint32_t)i};
            }
            std::sort(ranked.begin(), ranked.end(), [&](const Ranked &a, const Ranked &b) {
                if (a.score != b.score) return a.score < b.score;
                if (a.prefix != b.prefix) return a.prefix < b.prefix;
                return run_doc(a.index) < run_doc(b.index);
            });
            kept.assign(n_r, 1);
            if (max_retrieved >= 0 && (size_t)max_retrieved < n_r) {
                // The first max_retrieved in trec_eval's order: of the tie
                // group at the cut, its last docnos.
                const size_t m = (size_t)max_retrieved;
                size_t a = m, b = m;
                if (m > 0) {
                    a = m - 1;
                    while (a > 0 && ranked[a - 1].score == ranked[m - 1].score) --a;
                    b = m;
                    while (b < n_r && ranked[b].score == ranked[m - 1].score) ++b;
                }
                for (size_t i = a; i < n_r; ++i) kept[ranked[i].index] = 0;
                for (size_t i = b - (m - a); i < b; ++i) kept[ranked[i].index] = 1;
            }
            // Each judgment looked up among the kept results; judgments
            // twice for the query are duplicates (their own table).
            grade.assign(n_r, mark_unjudged ? -1 : 0);
            std::vector<uint8_t> has(n_r, 0);
            matched.assign(n_j, 0);
            for (size_t i = 0; i < n_j; ++i) {
                const Judgment &e = qrels[j_ids[i]];
                const uint32_t h = (uint32_t)StringTable::hash(e.doc);
                const size_t j = slot_of(e.doc, h, mask, run_doc);
                if (slots[j] && kept[slots[j] - 1]) {
                    const size_t r = slots[j] - 1;
                    if (!has[r]) {
                        has[r] = 1;
                        grade[r] = (mark_unjudged && e.grade < 0) ? -2 : e.grade;
                        matched[i] = 1;
                    }
                }
            }
            {
                auto judged_doc = [&](size_t i) { return qrels[j_ids[i]].doc; };
                slots.assign(size, 0);
                for (size_t i = 0; i < n_j; ++i) {
                    const std::string_view doc = judged_doc(i);
                    const uint32_t h = (uint32_t)StringTable::hash(doc);
                    hashes[i] = h;
                    const size_t j = slot_of(doc, h, mask, judged_doc);
                    if (slots[j])
                        duplicate(0, qrels_data, doc.data(), doc, q);
                    else
                        slots[j] = (uint32_t)i + 1;
                }
            }
            if (judged_only)
                for (size_t r = 0; r < n_r; ++r)
                    if (!has[r] || grade[r] < 0) kept[r] = 0;
            for (size_t i = 0; i < n_r; ++i) {
                const uint32_t r = ranked[i].index;
                if (!kept[r]) continue;
                y_score[n] = run[r_ids[r]].score;
                y_true[n] = grade[r];
                ++n;
            }
            for (size_t i = 0; i < n_j; ++i) {
                const int64_t g = qrels[j_ids[i]].grade;
                if (matched[i] || (mark_unjudged ? g < 0 : g <= 0)) continue;
                y_score[n] = -HUGE_VAL;
                y_true[n] = g;
                ++n;
            }
            offsets[++row] = n;
        }
        return dup_kind >= 0 ? -1 : n;
    }
};

// The line (1-based) of the first byte that is not valid UTF-8, or 0.
// ASCII runs are skipped 8 bytes at a time; lines are counted only when a
// bad byte is found.
inline int64_t first_invalid_utf8_line(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t word;
            std::memcpy(&word, s + i, 8);
            if (!(word & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        if (c < 0x80) { ++i; continue; }
        int len;
        uint32_t cp;
        bool bad = false;
        if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
        else { len = 1; cp = 0; bad = true; }
        if (!bad && i + (size_t)len > n) bad = true;
        for (int k = 1; k < len && !bad; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) bad = true;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (!bad && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
                     (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
                     (cp >= 0xD800 && cp <= 0xDFFF)))
            bad = true;
        if (bad) return 1 + (int64_t)std::count(s, s + i, (unsigned char)'\n');
        i += (size_t)len;
    }
    return 0;
}

}  // namespace rankk

#endif
