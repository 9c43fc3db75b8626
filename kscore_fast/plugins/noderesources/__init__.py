"""The node resource plugins: NodeResourcesFit (filter and score) and
NodeResourcesBalancedAllocation (score), pkg/scheduler/framework/plugins/noderesources.

Both read the same bookkeeping, prepared once per (snapshot, batch) in :mod:`.resources`:
resource columns (cpu, memory, ephemeral-storage, then the scalar resources the pending
pods request), the nodes' allocatable and requested amounts (``NodeInfo.Allocatable``,
``Requested``, ``NonZeroRequested``, pod count) and the pending pods' requests and
container tables. Each plugin's state starts with the same eight arrays
(:mod:`.fit_kernels` lists them) and owns its copies of the node aggregates that
``assume`` updates, so both plugins can be driven side by side.

Modules: ``fit`` / ``balanced`` (the classes), ``fit_kernels`` / ``balanced_kernels`` (the
compiled per-pod functions, reached through their entry points), ``allocation_kernels``
(shared numba helpers and preparation kernels), ``args`` (pluginConfig args), ``names``
(resource-name classes), and the scalar Go ports ``resources_reference``, ``fit_reference``,
``balanced_reference`` the kernels are tested against.
"""

from .balanced import NodeResourcesBalancedAllocation
from .fit import NodeResourcesFit

__all__ = ["NodeResourcesBalancedAllocation", "NodeResourcesFit"]
