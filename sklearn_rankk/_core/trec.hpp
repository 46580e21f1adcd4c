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

/* Parse one file. kind: 0 qrels (qid iter docno rel), 1 run (qid Q0 docno
 * rank score tag [...]). */
inline void parse_trec(const char *data, size_t size, int kind, StringTable &qids,
                       StringTable &docs, TrecEntries &out) {
    size_t pos = 0;
    if (size >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        pos = 3;
    int64_t lineno = 0;
    std::string_view fields[7];
    // Room for one entry per line, counted first: the vectors never grow
    // (growing doubles them, and copies: three times the memory at peak).
    size_t n_lines = 1;
    for (const char *p = data, *stop = data + size;
         p < stop && (p = (const char *)std::memchr(p, '\n', stop - p)); ++p)
        ++n_lines;
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
                return;
            }
            int64_t g = 0;
            int status = parse_integer(fields[3], g);
            if (status) {
                out.error_line = lineno;
                out.error = "relevance " + quoted(fields[3]) +
                            (status == 1 ? " is not an integer."
                                         : " is out of range (a 64-bit integer).");
                return;
            }
            if (last_qid_id < 0 || fields[0] != last_qid) {
                last_qid_id = qids.add(fields[0], lineno);
                last_qid = fields[0];
            }
            out.qid.push_back(last_qid_id);
            out.doc.push_back(docs.add(fields[2], lineno));
            out.grade.push_back(g);
        } else {
            if (total < 6) {
                out.error_line = lineno;
                out.error = "expected 6 fields 'qid Q0 docno rank score tag'; got " +
                            std::to_string(total) + ".";
                return;
            }
            double v = 0.0;
            if (!parse_decimal(fields[4], v)) {
                out.error_line = lineno;
                out.error = "score " + quoted(fields[4]) + " is not a finite number.";
                return;
            }
            if (last_qid_id < 0 || fields[0] != last_qid) {
                last_qid_id = qids.add(fields[0], lineno);
                last_qid = fields[0];
            }
            out.qid.push_back(last_qid_id);
            out.doc.push_back(docs.add(fields[2], lineno));
            out.score.push_back(v);
            last_tag = fields[5];
        }
        out.line.push_back(lineno);
    }
    if (kind == 1) out.tag.assign(last_tag.data(), last_tag.size());
}

// The line (1-based) of the first byte that is not valid UTF-8, or 0.
inline int64_t first_invalid_utf8_line(const unsigned char *s, size_t n) {
    int64_t line = 1;
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '\n') { ++line; ++i; continue; }
        if (c < 0x80) { ++i; continue; }
        int len;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
        else return line;
        if (i + (size_t)len > n) return line;
        for (int k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return line;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return line;
        i += (size_t)len;
    }
    return 0;
}

}  // namespace rankk

#endif
