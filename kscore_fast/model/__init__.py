"""The cluster model: typed records, interned label columns, selectors, the columnar
snapshot.

The model knows no file format: :mod:`kscore_fast.io` turns manifests into the records
of :mod:`.objects`, and :mod:`.snapshot` turns records into NumPy columns.
"""
