"""numba kernels of ImageLocality; the scalar specification is ``reference.py``.

The state (built by ``plugin.prepare``) is one tuple; N nodes (node-tree order), U the
images the batch's containers use that some node holds, B pending pods:

===  ==========  ========================================================================
 0   node_ptr    int64[N+1]: node ``n``'s images are entries ``node_ptr[n]:node_ptr[n+1]``
 1   node_img    int32[E]: their image ids (0..U-1), increasing within a node
 2   node_score  int64[E]: ``scaledImageScore`` of that image on that node (its
                 ``ImageStateSummary`` as the scheduler cache holds it, spread over all
                 N nodes)
 3   pod_ptr     int64[B+1]: pod ``p``'s containers (``spec.containers``, in order) are
                 entries ``pod_ptr[p]:pod_ptr[p+1]``
 4   pod_img     int32[C]: the image id of each container's normalized image name, -1
                 when no node holds it
===  ==========  ========================================================================
"""

from __future__ import annotations

from ..._jit import inline_kernel, unrefcounted_kernel
from ..helper.bisect import lower_bound

#: image_locality.go: ``mb``, ``minThreshold``, ``maxContainerThreshold``
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


@inline_kernel
def _image_score(node_img, node_score, lo, hi, img):  # pragma: no cover - compiled
    """The node's score for image ``img`` (0 when the node does not hold it): a binary
    search of the node's entries ``lo:hi``."""
    at = lower_bound(node_img, lo, hi, img)
    if at < hi and node_img[at] == img:
        return node_score[at]
    return 0


@inline_kernel
def _calculate_priority(sum_scores, num_containers):  # pragma: no cover - compiled
    """``calculatePriority``. The numerator is never negative, and is 0 whenever the
    denominator is (no containers), so ``//`` is Go's truncating division here."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return 100 * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


@unrefcounted_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``Score``: ``calculatePriority(sumImageScores(...), len(containers))`` per node."""
    node_ptr, node_img, node_score, pod_ptr, pod_img = state
    c_lo, c_hi = pod_ptr[pod], pod_ptr[pod + 1]
    for i in range(nodes.shape[0]):
        n = nodes[i]
        total = 0
        for c in range(c_lo, c_hi):
            img = pod_img[c]
            if img >= 0:
                total += _image_score(node_img, node_score, node_ptr[n], node_ptr[n + 1], img)
        out[i] = _calculate_priority(total, c_hi - c_lo)
