"""Inverse propensities of the labels, for the propensity-scored metrics.

:func:`psprecision_at_k_score` and :func:`psndcg_at_k_score` (registry
entries, computed by the engine) weigh each relevant item by its inverse
propensity; :func:`inverse_propensity` computes Jain, Prabhu and Varma's
(KDD 2016) from the training labels, as pyxclib's ``compute_inv_propesity``.
"""

from __future__ import annotations

import numpy as np

from ._core.validation import as_array, check_grades, check_numeric_dtype, check_real
from ._core.validation import sparse as sp

__all__ = ["inverse_propensity"]


def inverse_propensity(y_train, *, A=0.55, B=1.5):
    """Inverse propensity of each label from its frequency in the training data.

    Jain, Prabhu and Varma (KDD 2016) model the propensity of label ``l``, the
    probability that a relevant label is observed, as ``p_l = 1 / (1 + C
    (N_l + B)**-A)`` with ``C = (log N - 1) (B + 1)**A``, ``N`` the number of
    training samples and ``N_l`` the number of them that have label ``l``.
    The inverse propensity is::

        1 / p_l = 1 + (log N - 1) (B + 1)**A (N_l + B)**-A

    (natural logarithm), pyxclib's ``compute_inv_propesity``
    (``xclib/evaluation/xc_metrics.py``): rare labels weigh more. Pass it as
    ``propensity=`` to :func:`psprecision_at_k_score` and
    :func:`psndcg_at_k_score`.

    Parameters
    ----------
    y_train : array-like or sparse matrix of shape (n_samples, n_labels)
        Training labels; label ``l`` is present in a sample where
        ``y_train > 0`` (pyxclib sums the values, the same on binary labels).
        Any scipy.sparse matrix or array is read without being densified.
    A : float, default=0.55
        The exponent: 0.5 for Wikipedia, 0.6 for Amazon, 0.55 otherwise
        (Jain et al.).
    B : float, default=1.5
        The offset, > 0: 0.4 for Wikipedia, 2.6 for Amazon, 1.5 otherwise.

    Returns
    -------
    inv_propensity : ndarray of shape (n_labels,)
        ``1 / p_l`` of every label, float64; a label never seen in training
        has the largest. For ``n_samples >= 3`` every value is above 1.

    See Also
    --------
    psprecision_at_k_score : Propensity-scored precision at k.
    psndcg_at_k_score : Propensity-scored nDCG at k.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import inverse_propensity
    >>> y_train = np.array([[1, 0, 1], [1, 0, 0], [1, 1, 0], [0, 0, 0]])
    >>> inverse_propensity(y_train).round(6)
    array([1.279588, 1.386294, 1.386294])

    With ``N = 4``, ``C = (log 4 - 1) 2.5**0.55 = 0.639419``; the first label
    is in three samples: ``1 + C (3 + 1.5)**-0.55 = 1.279588``; the others in
    one, where ``N_l + B = B + 1`` and the value is ``log N = 1.386294``.
    """
    A = check_real(A, "A")
    B = check_real(B, "B", low=0.0)
    y = as_array(y_train, "y_train")
    if y.ndim != 2:
        raise ValueError(
            f"y_train must be 2-D, of shape (n_samples, n_labels); got shape {y.shape}."
        )
    n_samples, n_labels = y.shape
    if n_samples == 0 or n_labels == 0:
        raise ValueError(f"y_train is empty: shape {y.shape}.")
    if sp.issparse(y):
        csr = y.tocsr()
        data = np.asarray(csr.data)
        check_numeric_dtype(data, "y_train")
        check_grades(data)
        counts = np.bincount(csr.indices[data > 0], minlength=n_labels)
    else:
        check_numeric_dtype(y, "y_train")
        check_grades(y)
        counts = np.count_nonzero(y > 0, axis=0)
    c = (np.log(n_samples) - 1.0) * (B + 1.0) ** A
    return 1.0 + c * (counts.astype(np.float64) + B) ** -A
