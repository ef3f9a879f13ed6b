"""Plain data passed between stages: schema, workload, findings and the capture that holds them."""

from .capture import Capture, ServerInfo, load_capture, save_capture
from .finding import Finding, Severity
from .schema import (
    MAX,
    CheckConstraint,
    Column,
    Computed,
    Database,
    DataType,
    ForeignKey,
    Identity,
    Index,
    IndexColumn,
    Key,
    Module,
    PartitionFunction,
    PartitionScheme,
    Sequence,
    SourceRef,
    Table,
    TablePartitioning,
    Temporal,
    UserType,
)
from .serde import from_dict, to_dict
from .statistics import ColumnStatistics, HistogramStep, TableStatistics
from .workload import Event, Generator, IntervalStat, Parameter, QueryClass, Window, Workload

__all__ = [
    "MAX", "Capture", "CheckConstraint", "Column", "ColumnStatistics", "Computed", "DataType", "Database", "Event",
    "Finding", "ForeignKey", "Generator", "HistogramStep", "Identity", "Index", "IndexColumn", "IntervalStat", "Key",
    "Module", "Parameter", "PartitionFunction", "PartitionScheme", "QueryClass", "Sequence",
    "ServerInfo", "Severity", "SourceRef", "Table", "TableStatistics", "TablePartitioning", "Temporal", "UserType",
    "Window", "Workload", "from_dict", "load_capture", "save_capture", "to_dict",
]
