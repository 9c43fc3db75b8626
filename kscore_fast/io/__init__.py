"""The boundary: Kubernetes manifests in, result files out.

Only this package knows file formats. ``manifests`` reads files into plain objects,
``objects`` validates them into model records, ``output`` writes results atomically.
"""
