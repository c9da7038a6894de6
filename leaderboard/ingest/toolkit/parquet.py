"""A Parquet file decoded as every reader of Parquet must (pyarrow is imported only here, and
only when a Parquet file is read)."""
from __future__ import annotations

import io

from leaderboard.ingest.csv_text import ambiguous_columns, duplicate_words
from leaderboard.ingest.toolkit.messages import Rejected


def decode_parquet(data: bytes, max_bytes: int):
    """A Parquet file as a pyarrow Table, with the checks every reader of Parquet makes (the
    per-item results' and the submissions'): its column names by the CSV header's rule
    (:func:`~leaderboard.ingest.csv_text.ambiguous_columns`: a name written twice, or twice but
    for spaces, is refused), the column and row caps from its metadata, and its pages decoded
    batch by batch, refused once they pass what a compressed input may expand to
    (:class:`~leaderboard.ingest.safe_read.Budget`: a dictionary-encoded page of one long text
    repeated decodes to gigabytes), before the whole table is built. Dictionary columns are
    decoded. Raises :class:`~leaderboard.ingest.toolkit.messages.Rejected`; pyarrow's own errors
    for a damaged file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from leaderboard import limits
    from leaderboard.ingest.safe_read import Budget, Unreadable

    parquet = pq.ParquetFile(io.BytesIO(data))
    fields = [str(name) for name in parquet.schema_arrow.names]
    clash = ambiguous_columns(fields)
    if clash is not None:
        raise Rejected(duplicate_words(fields, clash))
    caps = limits.current()
    for n, cap, what in ((parquet.metadata.num_columns, caps.max_columns, "columns"),
                         (parquet.metadata.num_rows, caps.max_rows, "rows")):
        if n > cap:
            raise Rejected(f"{n:,} {what}, over the cap of {cap:,}; raise it with --max-{what} "
                           "if the file is genuine")
    budget = Budget(len(data), max_bytes)
    batches = []
    for batch in parquet.iter_batches(batch_size=1 << 16):
        columns = [c.dictionary_decode() if pa.types.is_dictionary(c.type) else c
                   for c in batch.columns]
        batch = pa.RecordBatch.from_arrays(columns, names=batch.schema.names)
        try:
            budget.spend(batch.nbytes)
        except Unreadable as err:
            raise Rejected(str(err)) from None
        batches.append(batch)
    if not batches:
        return parquet.schema_arrow.empty_table()
    return pa.Table.from_batches(batches)
