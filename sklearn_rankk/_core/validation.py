"""Every input and parameter check of the package, in one place.

Each check raises a ``ValueError`` or ``TypeError`` whose message names the
parameter and says what was expected. Nothing is coerced in a way that could
change an answer: relevance and scores keep their dtype (float32 stays
float32), sparse ``y_true`` stays sparse.
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass

import numpy as np

from .checks import (  # noqa: F401  (re-exported: the checks of the whole package)
    MAX_K,
    check_bool,
    check_gain_map,
    check_k,
    check_option,
    check_option_or_callable,
    check_real,
    describe,
)

ZERO_DIVISION_OPTIONS = ('"warn"', "0.0", "1.0", "np.nan")
AVERAGE_OPTIONS = ("mean", None, "gmean")
#: The averages of a metric function that weight each row by a count of its
#: own (the kernel's COUNT_ROW), besides its sample_weight.
WEIGHTED_AVERAGES = ("relevant", "judged", "pairs", "ideal")
GAIN_OPTIONS = ("linear", "exponential")
DENOMINATOR_OPTIONS = ("relevant", "min", "retrieved")

_NUMERIC_KINDS = "biuf"


class _LazySparse:
    """``scipy.sparse``, imported when first used, so that importing the
    package (and the command line) does not import scipy.

    ``issparse`` answers without importing it: a sparse matrix can only
    exist once ``scipy.sparse`` is loaded.
    """

    @staticmethod
    def issparse(x):
        module = sys.modules.get("scipy.sparse")
        return module is not None and module.issparse(x)

    def __getattr__(self, name):
        import scipy.sparse

        return getattr(scipy.sparse, name)


#: ``scipy.sparse`` for the modules of the core, imported on first use.
sparse = _LazySparse()
sp = sparse


@dataclass(frozen=True)
class RankingInput:
    """Validated inputs.

    Either a matrix: ``y_score`` 2-D (an array, a row-sliceable array or a
    CSR matrix) and ``y_true`` a 2-D dense array or CSR matrix of its shape;
    or segments (``offsets`` not None): flat 1-D ``y_true`` and ``y_score``,
    row ``i`` being ``offsets[i]:offsets[i + 1]``.
    """

    y_true: object
    y_score: object
    sample_weight: np.ndarray | None
    offsets: np.ndarray | None = None
    from_labels: bool = False  # y_true was 1-D class labels

    @property
    def shape(self):
        """(rows, items of the longest row)."""
        if self.offsets is None:
            return tuple(self.y_score.shape)
        lengths = np.diff(self.offsets)
        return (lengths.shape[0], int(lengths.max(initial=0)))


def is_dask(x):
    """Whether ``x`` is a dask collection, without importing dask."""
    return type(x).__module__.partition(".")[0] == "dask"


def is_row_sliceable(x):
    """Whether ``x`` is scores read one block of rows at a time, never whole.

    A ``numpy.memmap``, or an array that is not a numpy array but has a
    numpy ``dtype``, a ``shape`` and row slicing (h5py, zarr, dask and the
    like). pandas and xarray objects are converted whole, as before.
    """
    if isinstance(x, np.memmap):
        return True
    return (
        not isinstance(x, np.ndarray)
        and not sp.issparse(x)
        and not hasattr(x, "to_numpy")
        and isinstance(getattr(x, "dtype", None), np.dtype)
        and all(hasattr(x, a) for a in ("shape", "ndim", "__getitem__"))
    )


def as_array(x, name):
    """Array from a list, numpy array, pandas object or sparse matrix."""
    if x is None:
        raise ValueError(f"{name} is required, got None.")
    if sp.issparse(x):
        return x
    if hasattr(x, "to_numpy") and hasattr(x, "columns"):  # pandas DataFrame
        dtypes = list(x.dtypes)
        if not dtypes:
            raise ValueError(
                f"{name} is empty: a DataFrame with no columns (shape {x.shape})."
            )
        kinds = {getattr(dt, "kind", "O") for dt in dtypes}
        if "c" in kinds:
            raise TypeError(f"{name} must be real numbers; got complex columns.")
        if not kinds <= set(_NUMERIC_KINDS):
            raise TypeError(
                f"{name} must hold numbers (bool, integer or float columns); the "
                f"DataFrame has dtypes {sorted({str(d) for d in dtypes})}."
            )
        if all(isinstance(dt, np.dtype) for dt in dtypes):
            return x.to_numpy(dtype=np.result_type(*dtypes))
        # pandas nullable dtypes (Int64, boolean, Float64): a missing value
        # becomes NaN and is then reported as NaN.
        return x.to_numpy(dtype=np.float64, na_value=np.nan)
    if hasattr(x, "to_numpy"):  # pandas Series
        return x.to_numpy()
    try:
        return np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} must be a rectangular array; could not convert it: {exc}"
        ) from exc


def check_numeric_dtype(x, name):
    kind = x.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} must be real numbers; got complex dtype {x.dtype}.")
    if kind not in _NUMERIC_KINDS:
        raise TypeError(
            f"{name} must be a numeric (bool, integer or float) array; "
            f"got dtype {x.dtype}."
        )


def _check_sparse_2d(x, name):
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got a {x.ndim}-D sparse array.")


def _check_sparse_format(x, name):
    """The arrays of a sparse matrix agree with each other and its shape."""
    fmt = x.format
    if fmt in ("csr", "csc"):
        major = x.shape[0] if fmt == "csr" else x.shape[1]
        minor = x.shape[1] if fmt == "csr" else x.shape[0]
        indptr, indices = np.asarray(x.indptr), np.asarray(x.indices)
        problem = None
        if indptr.ndim != 1 or indptr.shape[0] != major + 1:
            problem = f"indptr has {indptr.shape[0]} entries, not {major + 1}"
        elif indptr[0] != 0 or np.any(np.diff(indptr) < 0):
            problem = "indptr must start at 0 and never decrease"
        elif indptr[-1] != indices.shape[0] or indices.shape[0] != x.data.shape[0]:
            problem = (
                f"indptr ends at {indptr[-1]} but there are {indices.shape[0]} "
                f"indices and {x.data.shape[0]} values"
            )
        elif indices.size and (indices.min() < 0 or indices.max() >= minor):
            what = "columns" if fmt == "csr" else "rows"
            problem = f"an index lies outside its {minor} {what}"
    elif fmt == "coo":
        coords = (
            [np.asarray(c) for c in x.coords]
            if hasattr(x, "coords")
            else [np.asarray(x.row), np.asarray(x.col)]
        )
        problem = None
        if any(c.shape[0] != x.data.shape[0] for c in coords):
            problem = "its row, column and value arrays differ in length"
        elif any(
            c.size and (c.min() < 0 or c.max() >= n) for c, n in zip(coords, x.shape)
        ):
            problem = "a row or column index lies outside its shape"
    else:
        problem = None
    if problem is not None:
        raise ValueError(f"{name} is a malformed sparse matrix: {problem}.")


def _canonical_csr(x, name):
    """CSR with summed duplicates, never modifying the caller's matrix."""
    _check_sparse_format(x, name)
    try:
        x = x.tocsr()
    except (ValueError, IndexError, TypeError) as exc:
        raise ValueError(f"{name} is a malformed sparse matrix: {exc}") from exc
    _check_sparse_format(x, name)
    if not x.has_canonical_format:
        x = x.copy()
        x.sum_duplicates()
    return x


def check_y_score(y_score):
    """Validate ``y_score``: 2-D, numeric, non-empty, no NaN (±inf allowed).

    A row-sliceable array (:func:`is_row_sliceable`) is returned as it is. NaN
    scores are reported by the kernel, which reads every score (see
    :data:`NAN_SCORES`); :func:`check_no_nan` checks scores that the kernel
    will not read.
    """
    lazy = is_row_sliceable(y_score)
    if not lazy:
        y_score = as_array(y_score, "y_score")
    if sp.issparse(y_score):
        _check_sparse_2d(y_score, "y_score")
        y_score = _canonical_csr(y_score, "y_score")
    check_numeric_dtype(y_score, "y_score")
    if y_score.ndim != 2:
        raise ValueError(
            f"y_score must be a 2-D array of shape (n_samples, n_items); got "
            f"{y_score.ndim}-D with shape {y_score.shape}. For a single ranking, "
            f"pass it as one row: y_score.reshape(1, -1)."
        )
    if y_score.shape[0] == 0 or y_score.shape[1] == 0:
        raise ValueError(
            f"y_score is empty: shape {y_score.shape}; at least one row and one "
            f"column are needed."
        )
    # NaN scores are found by the kernel as it reads them (no pass here).
    return y_score


def check_y_true(y_true, y_score_shape, *, labels=None):
    """Validate ``y_true`` against the shape of ``y_score``.

    Returns a 2-D dense array or a CSR matrix. 1-D class labels become a
    one-hot CSR matrix whose columns are ``labels`` (or the sorted unique
    labels of ``y_true``), as in :func:`sklearn.metrics.top_k_accuracy_score`.
    """
    y_true = as_array(y_true, "y_true")
    if not sp.issparse(y_true) and y_true.ndim == 1:
        return _labels_to_csr(y_true, y_score_shape, labels)
    if labels is not None:
        raise ValueError(
            "labels is only used with 1-D class labels in y_true; y_true is "
            f"{y_true.ndim}-D here. Leave labels=None."
        )
    if sp.issparse(y_true):
        _check_sparse_2d(y_true, "y_true")
        y_true = _canonical_csr(y_true, "y_true")
        values = y_true.data
    else:
        values = y_true
    check_numeric_dtype(y_true, "y_true")
    if y_true.ndim != 2:
        raise ValueError(
            f"y_true must be 2-D relevance of shape (n_samples, n_items), or "
            f"1-D class labels; got {y_true.ndim}-D with shape {y_true.shape}."
        )
    if y_true.shape != tuple(y_score_shape):
        raise ValueError(
            f"y_true and y_score must have the same shape; got y_true "
            f"{y_true.shape} and y_score {tuple(y_score_shape)}."
        )
    if sp.issparse(y_true):  # dense grades are checked by the kernel as read
        check_grades(values)
    return y_true


NAN_SCORES = "y_score contains NaN. Use -inf for items that are not retrieved."
NAN_GRADES = "y_true contains NaN; relevance must be finite."
INF_GRADES = "y_true contains infinite values; relevance must be finite."


def check_grades(values):
    """Grades must be finite (negative grades are allowed: not relevant at a
    non-negative threshold, and of no gain in the graded metrics)."""
    if values.size and values.dtype.kind == "f":
        lo, hi = np.min(values), np.max(values)
        if np.isnan(lo) or np.isnan(hi):
            raise ValueError(NAN_GRADES)
        if np.isinf(lo) or np.isinf(hi):
            raise ValueError(INF_GRADES)


def check_no_nan(y_score):
    """NaN scores are an error (for scores the kernel will not read)."""
    values = y_score.data if sp.issparse(y_score) else y_score
    if is_row_sliceable(values):  # read a block of rows at a time
        step = max(1, (1 << 20) // max(values.shape[1], 1))
        blocks = (values[i : i + step] for i in range(0, values.shape[0], step))
    else:
        blocks = [np.asarray(values)]
    for block in blocks:
        block = np.asarray(block)
        if block.dtype.kind == "f" and block.size and np.isnan(np.min(block)):
            raise ValueError(NAN_SCORES)


def _labels_to_csr(y_true, shape, labels):
    n_samples, n_classes = shape
    if y_true.shape[0] != n_samples:
        raise ValueError(
            f"y_true (1-D class labels) has {y_true.shape[0]} samples but y_score "
            f"has {n_samples} rows; they must match."
        )
    if y_true.dtype.kind == "f" and np.isnan(y_true).any():
        raise ValueError("y_true contains NaN; class labels must be defined.")
    if y_true.dtype.kind == "c":
        raise TypeError(f"y_true must not be complex; got dtype {y_true.dtype}.")
    try:
        if labels is None:
            classes = np.unique(y_true)
            if classes.shape[0] != n_classes:
                raise ValueError(
                    f"Number of classes in y_true ({classes.shape[0]}) not equal to "
                    f"the number of columns in y_score ({n_classes}). Pass labels= "
                    f"with all the classes, in column order of y_score (a "
                    f"classifier's columns are its classes_). If the model never "
                    f"saw some class of y_true in training, its scores have no "
                    f"column for it: sklearn_rankk.get_scorer (or "
                    f"make_ranking_scorer) maps the columns through classes_ and "
                    f"counts such a class as a miss."
                )
        else:
            classes = _check_labels(labels, n_classes)
        cols = np.searchsorted(classes, y_true)
    except TypeError as exc:
        raise TypeError(
            "y_true class labels (and labels) must be of one comparable type; "
            f"got {exc}."
        ) from exc
    cols_clipped = np.minimum(cols, n_classes - 1)
    found = classes[cols_clipped] == y_true
    if not np.all(found):
        missing = np.unique(y_true[~found])
        raise ValueError(
            f"y_true contains labels not found in labels: {missing[:10].tolist()}."
        )
    data = np.ones(n_samples, dtype=np.int8)
    return sp.csr_matrix(
        (data, cols_clipped, np.arange(n_samples + 1)), shape=(n_samples, n_classes)
    )


def _check_labels(labels, n_classes):
    classes = np.asarray(labels)
    if classes.ndim != 1:
        raise ValueError(f"labels must be 1-D; got shape {classes.shape}.")
    if classes.shape[0] != n_classes:
        raise ValueError(
            f"labels has {classes.shape[0]} entries but y_score has "
            f"{n_classes} columns; there must be one label per column."
        )
    if classes.dtype.kind == "f" and np.isnan(classes).any():
        raise ValueError("labels contains NaN.")
    if np.unique(classes).shape[0] != classes.shape[0]:
        raise ValueError("labels must be unique.")
    if not np.array_equal(np.sort(classes), classes):
        raise ValueError(
            "labels must be ordered (sorted), as the columns of y_score are "
            "in sorted label order."
        )
    return classes


def largest_grade(y_true):
    """The largest grade of ``y_true`` (stored values of a sparse one), or
    None if it has none: one read, for the checks below."""
    values = y_true.data if sp.issparse(y_true) else y_true
    return np.max(values) if values.size else None


def check_exponential_gain(top, threshold):
    """2**grade must be finite in float64: relevant grades below 1024.
    ``top``: :func:`largest_grade` of y_true."""
    if top is not None and top >= 1024 and threshold < top:
        raise ValueError(
            f'gain="exponential" overflows for grades >= 1024 (2**grade is '
            f"infinite); y_true has a grade of {top}. Use "
            f'gain="linear".'
        )


def check_max_grade(top, threshold, max_grade):
    """ERR's stopping probabilities are at most 1: no relevant grade above
    ``max_grade``. ``top``: :func:`largest_grade` of y_true."""
    if top is not None and top > max_grade and top > threshold:
        raise ValueError(
            f"y_true has a relevant grade of {top}, above max_grade={max_grade:g}: "
            f"ERR's probability (2**grade - 1) / 2**max_grade would exceed 1. "
            f"Pass the largest grade of the scale as max_grade, or max_grade=None "
            f"for each row's largest grade."
        )


def check_sample_weight(sample_weight, n_samples):
    if sample_weight is None:
        return None
    w = as_array(sample_weight, "sample_weight")
    if sp.issparse(w):
        raise TypeError("sample_weight must be a dense 1-D array.")
    check_numeric_dtype(w, "sample_weight")
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D; got shape {w.shape}.")
    if w.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {w.shape[0]} entries but there are {n_samples} "
            f"samples (rows); they must match."
        )
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight must be finite (no NaN or inf).")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative.")
    if not np.any(w > 0):
        raise ValueError("sample_weight must have at least one positive weight.")
    return w


def check_zero_division(zero_division):
    if isinstance(zero_division, str) and zero_division == "warn":
        return zero_division
    is_real = isinstance(zero_division, numbers.Real) and not isinstance(
        zero_division, (bool, np.bool_)
    )
    if is_real and (np.isnan(zero_division) or zero_division in (0, 1)):
        return float(zero_division)
    raise ValueError(
        f"zero_division must be one of {', '.join(ZERO_DIVISION_OPTIONS)}; "
        f"got {zero_division!r}."
    )


def check_inputs(y_true, y_score, sample_weight, *, labels):
    _check_not_predicted_labels(y_true, y_score)
    y_true = align_columns(y_true, y_score)
    y_score = check_y_score(y_score)
    y_true = as_array(y_true, "y_true")
    from_labels = not sp.issparse(y_true) and y_true.ndim == 1
    y_true = check_y_true(y_true, y_score.shape, labels=labels)
    w = check_sample_weight(sample_weight, y_score.shape[0])
    return RankingInput(y_true, y_score, w, from_labels=from_labels)


def _column_labels(x):
    """The column labels of a DataFrame, or None: not a frame, or pandas'
    default labels 0..n-1 (a frame made from an array carries no labels)."""
    if not (hasattr(x, "columns") and hasattr(x, "to_numpy")):
        return None
    columns = x.columns
    default = type(columns).__name__ == "RangeIndex"
    if default and columns.start == 0 and columns.step == 1:
        return None
    return list(columns)


def align_columns(y_true, y_score):
    """``y_true`` with its columns in the order of ``y_score``'s.

    When both are DataFrames with column labels and the labels differ in
    order only, ``y_true``'s columns are reordered to match ``y_score``'s (the
    labels say which item each column is; ``y_score``'s order is kept, which
    is the order ``ignore_ties=True`` reads). When the sets of labels differ,
    or a label repeats, it is an error: the columns cannot be paired.
    Otherwise (arrays, or a frame without labels) columns pair by position.
    """
    true_labels, score_labels = _column_labels(y_true), _column_labels(y_score)
    if true_labels is None or score_labels is None or true_labels == score_labels:
        return y_true
    repeated = [
        name
        for name, labels in (("y_true", true_labels), ("y_score", score_labels))
        if len(set(labels)) != len(labels)
    ]
    if repeated:
        raise ValueError(
            f"y_true and y_score are DataFrames whose column labels differ, and "
            f"{' and '.join(repeated)} repeat(s) a label, so the columns cannot be "
            f"paired by label. Give each column a unique label, or pass arrays "
            f"(y_true.to_numpy(), y_score.to_numpy()) to pair them by position."
        )
    true_set, score_set = set(true_labels), set(score_labels)
    if true_set != score_set:
        only_true = [c for c in true_labels if c not in score_set]
        only_score = [c for c in score_labels if c not in true_set]
        raise ValueError(
            f"y_true and y_score are DataFrames with different column labels: "
            f"only in y_true: {only_true[:5]}, only in y_score: {only_score[:5]}. "
            f"Each column is an item, so the labels must be the same (in any "
            f"order: y_true's columns are then put in y_score's order). To pair "
            f"the columns by position instead, pass arrays (.to_numpy())."
        )
    return y_true[score_labels]


def _check_not_predicted_labels(y_true, y_score):
    """One value per sample in both: predicted labels, not a score matrix."""
    if is_row_sliceable(y_score) or sp.issparse(y_score) or sp.issparse(y_true):
        return
    try:
        one_d = np.ndim(y_true) == 1 and np.ndim(y_score) == 1
        same = one_d and len(y_true) == len(y_score) and len(y_true) > 1
    except (TypeError, ValueError):  # ragged lists and the like: checked later
        return
    if same and _real_scores(y_score):
        raise ValueError(
            f"y_true and y_score are both 1-D ({len(y_true)} values each): a "
            f"ranking metric takes one row of scores per query (or sample). For "
            f"a single ranking, pass both as one row: "
            f"y_true.reshape(1, -1), y_score.reshape(1, -1) (or [y_true], "
            f"[y_score]). For flat learning-to-rank data, one score per "
            f"document, pass qid= (each document's query id)."
        )
    if same:
        raise ValueError(
            "y_score is 1-D with one value per sample, like y_true: these look "
            "like predicted labels (scikit-learn's make_scorer calls predict "
            "unless told otherwise), not scores. A ranking metric needs a row "
            "of scores per sample, one per class or item: use make_scorer(..., "
            "response_method='predict_proba') (or 'decision_function'), or "
            "sklearn_rankk.get_scorer('hit@3'), which finds the scores and maps "
            "them through the fitted classes_. For flat learning-to-rank data "
            "(one score per document), pass qid=; for a single ranking, one "
            "row: y_true.reshape(1, -1), y_score.reshape(1, -1)."
        )


def _real_scores(y_score):
    """Whether 1-D ``y_score`` holds real scores (a value that is not a
    whole number), which predicted class labels never are."""
    try:
        values = np.asarray(y_score)
        if values.dtype.kind != "f":
            return False
        finite = values[np.isfinite(values)]
        return bool(np.any(finite != np.round(finite)))
    except (TypeError, ValueError):
        return False


def as_float64_exact(block):
    """float64 values that order and tie exactly as ``block`` does.

    Integers beyond 2**53 and long doubles can round to equal float64
    values; for them, the block's values are replaced by their ranks (a
    strictly increasing map, with -inf and NaN kept), which changes no
    ranking and hides no NaN.
    """
    as_float = block.astype(np.float64)
    kind, size = block.dtype.kind, block.dtype.itemsize
    exact = True
    if kind in "iu" and size >= 8 and block.size:
        exact = max(abs(int(block.min())), abs(int(block.max()))) <= 2**53
    elif kind == "f" and size > 8:
        exact = bool(np.all(as_float.astype(block.dtype) == block))
    if exact:
        return as_float
    ranks = np.unique(block, return_inverse=True)[1].reshape(block.shape)
    ranks = ranks.astype(np.float64)
    if kind == "f":
        ranks[block == -np.inf] = -np.inf
        # NaN stays NaN, for the kernel to report (a rank would hide it).
        ranks[np.isnan(block)] = np.nan
    return ranks


class ItemWeights:
    """Validated weights of the items (columns), such as inverse propensities.

    A read-only float64 array held so that a request carrying it stays
    hashable: equal weights compare equal (and hash alike), whatever array
    they came from, so scorers and accumulators built from equal arrays
    agree.
    """

    __slots__ = ("values", "_hash")

    def __init__(self, values):
        values = np.array(values, dtype=np.float64)
        values.setflags(write=False)
        self.values = values
        self._hash = hash(values.tobytes())

    def __eq__(self, other):
        return isinstance(other, ItemWeights) and np.array_equal(
            self.values, other.values
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"<{self.values.shape[0]} item weights>"

    def __getstate__(self):
        return self.values

    def __setstate__(self, values):
        ItemWeights.__init__(self, values)


def check_item_weights(value, name, n_items=None):
    """None, or :class:`ItemWeights`: a 1-D array of finite weights > 0, one
    per item (``n_items``, when known)."""
    if value is None:
        return None
    if isinstance(value, ItemWeights):
        weights = value
    else:
        if isinstance(value, (str, bytes)) or np.ndim(value) == 0:
            raise TypeError(
                f"{name} must be an array-like of shape (n_items,): one weight "
                f"per item (column); got {describe(value)}."
            )
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be an array-like of real numbers of shape "
                f"(n_items,); got {describe(value)}."
            ) from None
        if array.ndim != 1 or array.shape[0] == 0:
            raise ValueError(
                f"{name} must be a non-empty 1-D array of shape (n_items,), one "
                f"weight per item (column); got shape {array.shape}."
            )
        if not np.all(np.isfinite(array)) or not np.all(array > 0):
            raise ValueError(
                f"{name} must hold finite weights > 0 (inverse propensities are "
                f">= 1); got a NaN, infinite, zero or negative weight."
            )
        weights = ItemWeights(array)
    if n_items is not None and weights.values.shape[0] != n_items:
        raise ValueError(
            f"{name} must have one weight per item: shape ({n_items},), the "
            f"number of columns of y_score; got shape {weights.values.shape}."
        )
    return weights
