"""The demo upload churn-features-sample.parquet is a real Parquet table (written without
pyarrow by the seed; read back here with pyarrow, the `parquet` extra)."""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from jupyter_design_projects.server import seed


def test_the_demo_parquet_is_a_real_table_of_exactly_3_mib() -> None:
    data = seed.churn_parquet()
    assert len(data) == seed.PARQUET_BYTES == 3 * 1024 * 1024
    table = pq.read_table(io.BytesIO(data))
    assert table.column_names == ["customer_id", "tenure_months", "monthly_charges", "plan"]
    assert [str(t) for t in table.schema.types] == ["int64", "int32", "double", "string"]
    assert table.num_rows == 107_000
    first = table.slice(0, 1).to_pylist()[0]
    assert first["customer_id"] == 100_001 and first["plan"] in ("basic", "plus", "premium")
    assert 1 <= min(table.column("tenure_months").to_pylist()) <= 72
    assert seed.churn_parquet.__wrapped__() == data  # deterministic (drawn again, uncached)


@pytest.mark.parametrize("pad_to", [0, 4_000, 4_001, 70_000])
def test_padding_reaches_the_exact_size_and_stays_readable(pad_to: int) -> None:
    columns = [("n", 2, (7).to_bytes(8, "little") * 3)]
    data = seed.parquet_table(3, columns, pad_to=pad_to)
    if pad_to:
        assert len(data) == pad_to
    assert pq.read_table(io.BytesIO(data)).column("n").to_pylist() == [7, 7, 7]


def test_a_table_already_over_the_size_is_refused() -> None:
    columns = [("n", 2, b"\0" * 8 * 100)]
    with pytest.raises(ValueError, match="already"):
        seed.parquet_table(100, columns, pad_to=500)
