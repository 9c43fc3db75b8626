"""Write results: the JSON document, or Parquet/Arrow tables; never a partial file.

* ``json``: the document of docs/contract.md, to a file or stdout.
* ``parquet`` / ``arrow``: ``-o DIR`` becomes a directory holding ``scores.<ext>`` (one
  row per pod, node and plugin: pod, node, plugin, raw, normalized, weighted, total) and
  ``placements.<ext>`` (one row per pod: pod, host, feasible, evaluated, error).

Files are written under a temporary name in the destination's directory and renamed
into place, so an interrupted run leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import InputError
from ..framework.result import ScoreResult

if TYPE_CHECKING:
    import pyarrow as pa

FORMATS = ("json", "parquet", "arrow")


def iter_json(result: ScoreResult) -> Iterator[str]:
    """The JSON document in pieces, one pod's result at a time, without building it.

    Equal to ``json.dumps(result.to_dict())`` once parsed; a batch of 10,000 pods on 5,000
    nodes never holds 50 million Python dicts.
    """
    dumps = json.dumps
    node_names = [dumps(n) for n in result.node_names]
    plugin_keys = [dumps(p) for p in result.plugin_names]
    weights = result.weights
    ptr = result.ptr.tolist()
    all_totals = result.total
    yield '{"results": ['
    for i, pod in enumerate(result.pod_names):
        lo, hi = ptr[i], ptr[i + 1]
        nodes = result.nodes[lo:hi].tolist()
        total = all_totals[lo:hi].tolist()
        raw = [r[lo:hi].tolist() for r in result.raw]
        norm = [r[lo:hi].tolist() for r in result.normalized]
        entries = []
        for j, n in enumerate(nodes):
            plugins = ",".join(
                f'{key}:{{"raw":{raw[k][j]},"normalized":{norm[k][j]},'
                f'"weighted":{norm[k][j] * weights[k]}}}'
                for k, key in enumerate(plugin_keys)
            )
            entries.append(f'{{"node":{node_names[n]},"total":{total[j]},"plugins":{{{plugins}}}}}')
        h = int(result.hosts[i])
        yield (
            ("" if i == 0 else ",\n")
            + f'{{"pod":{dumps(pod)},"host":{node_names[h] if h >= 0 else "null"},'
            f'"feasibleNodes":{int(result.feasible[i])},'
            f'"evaluatedNodes":{int(result.evaluated[i])},"error":{dumps(result.errors[i])},'
            f'"scores":[{",".join(entries)}]}}'
        )
    yield "]}\n"


def write_json(result: ScoreResult, stream: TextIO) -> None:
    for piece in iter_json(result):
        stream.write(piece)


def _atomic_file(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")


def write_result(result: ScoreResult, fmt: str, output: str | None) -> None:
    """Write ``result`` as ``fmt`` to ``output`` (stdout for JSON when None)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if fmt == "json":
        if output is None:
            write_json(result, sys.stdout)
            return
        path = Path(output)
        fd, tmp = _atomic_file(path)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                write_json(result, fh)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return
    if output is None:
        raise InputError(f"--format {fmt} writes a directory of tables: give it with -o DIR")
    path = Path(output)
    if path.exists() and not path.is_dir():
        raise InputError(f"-o {output}: exists and is not a directory")
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or "."))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary directory
    try:
        ext = "parquet" if fmt == "parquet" else "arrow"
        _write_batches(result.scores_schema(), result.score_batches(), tmp / f"scores.{ext}", fmt)
        placements = result.placements_table()
        _write_batches(placements.schema, placements.to_batches(), tmp / f"placements.{ext}", fmt)
        if path.exists():
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_batches(schema: pa.Schema, batches: Iterable[pa.RecordBatch], path: Path,
                   fmt: str) -> None:  # fmt: skip
    """Stream record batches into a Parquet file or an Arrow IPC file (Feather v2)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt == "parquet":
        with pq.ParquetWriter(path, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    else:
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
