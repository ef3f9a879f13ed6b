"""Strings read as dates the way SQL Server reads them (us_english, DATEFORMAT mdy), and written for TiDB."""

from __future__ import annotations

from datetime import datetime

import pytest

from sqlsrv2tidb.tsql.datetimes import read_datetime, written_for_tidb


@pytest.mark.parametrize(("text", "expected"), [
    ("2019", datetime(2019, 1, 1)),
    ("1/1/2016", datetime(2016, 1, 1)),
    ("1-5-2009", datetime(2009, 1, 5)),
    ("1.5.2016", datetime(2016, 1, 5)),
    ("12/31/99", datetime(1999, 12, 31)),
    ("1/1/49", datetime(2049, 1, 1)),
    ("2019-01-05", datetime(2019, 1, 5)),
    ("2019/2/3", datetime(2019, 2, 3)),
    ("20190105", datetime(2019, 1, 5)),
    ("190105", datetime(2019, 1, 5)),
    ("Apr 15 1996", datetime(1996, 4, 15)),
    ("15 April, 1996", datetime(1996, 4, 15)),
    ("1996 APRIL 15", datetime(1996, 4, 15)),
    ("Apr 1996", datetime(1996, 4, 1)),
    ("15 Apr 96", datetime(1996, 4, 15)),
    ("10:30", datetime(1900, 1, 1, 10, 30)),
    ("6:30 PM", datetime(1900, 1, 1, 18, 30)),
    ("12:00 AM", datetime(1900, 1, 1, 0, 0)),
    ("10:30:00:123", datetime(1900, 1, 1, 10, 30, 0, 123000)),
    ("1/5/2016 3:04 PM", datetime(2016, 1, 5, 15, 4)),
    ("2019-01-05T10:20:30.123", datetime(2019, 1, 5, 10, 20, 30, 123000)),
    ("2019-01-05 10:20:30.1234567", datetime(2019, 1, 5, 10, 20, 30, 123456)),
    ("", datetime(1900, 1, 1)),  # an empty string is day 0: `ClosedDate != ''` holds for every date
    ("   ", datetime(1900, 1, 1)),
])
def test_sql_server_reads(text, expected):
    assert read_datetime(text) == expected


@pytest.mark.parametrize("text", ["13/1/2016", "2019-13-01", "2/30/2020", "yesterday", "25:00", "13:00 PM", "Apr 15 96 97"])
def test_what_sql_server_cannot_read(text):
    assert read_datetime(text) is None


def test_written_for_tidb():
    assert written_for_tidb(datetime(2016, 1, 5)) == "2016-01-05 00:00:00"
    assert written_for_tidb(datetime(2016, 1, 5, 1, 2, 3, 120000)) == "2016-01-05 01:02:03.12"
    assert written_for_tidb(datetime(2016, 1, 5, 1, 2, 3), with_time=False) == "2016-01-05"
