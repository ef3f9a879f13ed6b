"""WideWorldImporters (the SSDT project in tests/corpus/wwi-oltp-ssdt) in the SQL Server endpoint, with rows.

Loaded by the generated-corpus loader (corpus_rows.py). The project's own post-deployment scripts hold
its reference data (people, countries, cities, delivery and payment methods, suppliers, stock items...):
those that insert fixed lists run as published and keep their rows. Its transactions (orders, invoices,
transactions, purchase orders, temperatures) come from procedures that draw random numbers day by day
(DataLoadSimulation), so they are generated instead, by the data stage's generator, shaped by the
histograms below where the corpus's queries filter: dates in the sample's period (2020, the year its
scripts start in), current rows' `ValidTo` at the end of time, flags such as `IsOnCreditHold` mostly off,
customers mostly served by `DeliveryMethodID` 3 (Delivery Van), optional text mostly NULL.

What the endpoint cannot hold, and what is done instead:
- temporal tables: the period columns are ordinary datetime2 columns and the `_Archive` history tables
  ordinary tables (generated rows); there is no SYSTEM_VERSIONING, so `FOR SYSTEM_TIME` cannot be asked;
- memory-optimized tables (`ColdRoomTemperatures`, `VehicleTemperatures`, `ColdRoomTemperatures_temp`):
  ordinary tables holding the same rows;
- geography columns: varbinary(max) holding the published bytes (corpus_rows.STAND_IN);
- computed columns: each is added where the endpoint takes it; it refuses `concat(...)` and
  `TRY_CONVERT(...)` ones ("generation expression is not immutable"), which are left to the target
  (the refusals are in the load result's `left_out`);
- scripts not run: the customers (pds230) and system parameters (pds270), which pick cities, names and
  phone numbers at random (those tables are generated); the state borders (pds142), whose `ValidFrom` is
  random (the borders stay NULL); the sample's history procedure and the two scripts after it.
  The suppliers' script (pds220) runs, and what it picked at random for each supplier (a city, with the
  bank branch and phone area code that follow from it) is then set from the supplier's id (`SETTLE`),
  so every load holds the same rows.
"""

from __future__ import annotations

from datetime import date, timedelta

from corpus_rows import GeneratedCorpus, create_generated
from paths import CORPUS

from sqlsrv2tidb.model import Table
from sqlsrv2tidb.model.statistics import ColumnStatistics, HistogramStep

WWI = CORPUS / "wwi-oltp-ssdt"
SCRIPTS = WWI / "PostDeploymentScripts"
PERIOD = (date(2020, 1, 1), date(2020, 6, 30))
"""The sample's own period: its scripts stamp reference rows 2020-01-01 and simulate orders from there."""
END_OF_TIME = "9999-12-31 23:59:59.999999"
"""`ValidTo` of a current row (the scripts write .9999999; datetime2(6) on the endpoint holds .999999)."""

REFERENCE = tuple(SCRIPTS / name for name in (
    "pds100-ins-app-people.sql", "pds105-ins-dls-ficticiousnamepool.sql", "pds106-ins-dls-areacode.sql",
    "pds110-ins-app-countries.sql", "pds120-ins-app-deliverymethods.sql", "pds130-ins-app-paymentmethods.sql",
    "pds140-ins-app-stateprovinces.sql", "pds150-ins-app-cities.sql", "pds151-ins-post-app-cities.sql",
    "pds160-ins-app-transactiontypes.sql", "pds170-ins-purchasing-suppliercategories.sql",
    "pds180-ins-sales-groups-categories.sql", "pds190-ins-warehouse-colors.sql",
    "pds200-ins-warehouse-packagetypes.sql", "pds210-ins-warehouse-stockgroups.sql",
    "pds220-ins-purchasing-suppliers.sql", "pds240-ins-warehouse-stockitems.sql",
    "pds250-ins-warehouse-stockitemholdings.sql", "pds260-ins-warehouse-stockitemstockgroups.sql"))
"""The post-deployment scripts, in the master script's order, that insert fixed lists."""

FUNCTIONS = (WWI / "DataLoadSimulation" / "Functions" / "GetStateProvinceID.sql",
             WWI / "DataLoadSimulation" / "Functions" / "GetPersonID.sql",
             WWI / "DataLoadSimulation" / "Functions" / "GetDeliveryMethodID.sql",
             WWI / "DataLoadSimulation" / "Functions" / "GetSupplierCategoryID.sql",
             WWI / "DataLoadSimulation" / "Stored Procedures" / "GetRandomCity.sql")
"""What the reference scripts call."""

SETTLE = ("UPDATE s SET DeliveryCityID = c.CityID, PostalCityID = c.CityID, DeliveryLocation = c.Location, "
          "BankAccountBranch = N'Woodgrove Bank ' + c.CityName, "
          "PhoneNumber = N'(' + c.AreaCode + N') ' + RIGHT(s.PhoneNumber, 8), "
          "FaxNumber = N'(' + c.AreaCode + N') ' + RIGHT(s.FaxNumber, 8), "
          "ValidFrom = DATEADD(minute, s.SupplierID % 5 + 1, CAST('2020-01-01' AS datetime2)) "
          "FROM Purchasing.Suppliers AS s JOIN (SELECT ci.CityID, ci.CityName, ci.Location, "
          "(SELECT MIN(a.AreaCode) FROM DataLoadSimulation.AreaCode AS a WHERE a.StateProvinceCode = sp.StateProvinceCode) "
          "AS AreaCode, ROW_NUMBER() OVER (ORDER BY ci.CityID) AS n FROM Application.Cities AS ci "
          "JOIN Application.StateProvinces AS sp ON sp.StateProvinceID = ci.StateProvinceID WHERE EXISTS "
          "(SELECT 1 FROM DataLoadSimulation.AreaCode AS a WHERE a.StateProvinceCode = sp.StateProvinceCode)) AS c "
          "ON c.n = s.SupplierID * 97",)
"""What the suppliers' script picks at random (GetRandomCity: a city, its bank branch's name, an area code
of its state for the phone and fax numbers; then the city's location and a ValidFrom a random 1-5 minutes
after its start), set from each supplier's id instead."""

ROWS = {
    "Sales.Customers": 400, "Sales.Orders": 1500, "Sales.OrderLines": 4000, "Sales.Invoices": 1400,
    "Sales.InvoiceLines": 3500, "Sales.CustomerTransactions": 1500, "Sales.SpecialDeals": 2,
    "Purchasing.PurchaseOrders": 300, "Purchasing.PurchaseOrderLines": 800, "Purchasing.SupplierTransactions": 300,
    "Warehouse.StockItemTransactions": 3000, "Warehouse.ColdRoomTemperatures": 4,
    "Warehouse.VehicleTemperatures": 500, "Application.SystemParameters": 1, "dbo.SampleVersion": 1,
    "DataLoadSimulation.SeasonVariation": 8, "DataLoadSimulation.ColdRoomTemperatures_temp": 0,
    "Application.Logs": 20,
}


def _values(column: str, counts: dict[str | None, float]) -> ColumnStatistics:
    """A column holding exactly these values (None: NULL) in these proportions."""
    steps = [HistogramStep(None, eq_rows=counts[None])] if None in counts else []
    steps += [HistogramStep(key, eq_rows=n) for key, n in sorted(((k, n) for k, n in counts.items() if k is not None),
                                                                  key=lambda kv: kv[0])]
    return ColumnStatistics(column, histogram=tuple(steps))


def _days(column: str, low: date, high: date, nulls: float = 0.0, *, clock: bool = False) -> ColumnStatistics:
    """A date (or, with `clock`, date-time) column spread evenly over `low`..`high`, a month per step."""
    steps = [HistogramStep(None, eq_rows=nulls)] if nulls else []
    previous, month = None, low
    while month <= high:
        key = f"{month.isoformat()} 08:00:00" if clock else month.isoformat()
        inside = 0 if previous is None else (month - previous).days - 1
        per_day = 86_400 * 10 if clock else 1  # a date-time has room for many values a day
        steps.append(HistogramStep(key, range_rows=inside * 3.0, eq_rows=3.0, distinct_range_rows=inside * per_day,
                                   avg_range_rows=1.0))
        previous, month = month, (month.replace(day=1) + timedelta(days=32)).replace(day=1)
    return ColumnStatistics(column, histogram=tuple(steps))


def _range(column: str, low: str, high: str, nulls: float = 0.0, distinct: float = 1000.0) -> ColumnStatistics:
    """A number column spread over `low`..`high` (keys as text), with a share of NULLs."""
    steps = [HistogramStep(None, eq_rows=nulls)] if nulls else []
    steps += [HistogramStep(low, eq_rows=0.01), HistogramStep(high, range_rows=0.98 - nulls, eq_rows=0.01,
                                                              distinct_range_rows=distinct)]
    return ColumnStatistics(column, histogram=tuple(steps))


_NUMBERS = {"Quantity": ("1", "120"), "OrderedOuters": ("1", "60"), "ReceivedOuters": ("0", "60"),
            "PickedQuantity": ("0", "120"), "TotalDryItems": ("0", "12"), "TotalChillerItems": ("0", "4"),
            "UnitPrice": ("0.66", "1899.00"), "ExpectedUnitPricePerOuter": ("1.00", "2000.00"),
            "TaxAmount": ("0.00", "2500.00"), "LineProfit": ("0.00", "3000.00"), "ExtendedPrice": ("1.00", "9000.00"),
            "AmountExcludingTax": ("-5000.00", "20000.00"), "TransactionAmount": ("-5000.00", "23000.00"),
            "CreditLimit": ("1000.00", "5000.00"), "StandardDiscountPercentage": ("0.000", "0.000"),
            "PaymentDays": ("7", "30"), "ColdRoomSensorNumber": ("1", "4"), "ChillerSensorNumber": ("1", "2"),
            "Temperature": ("2.00", "8.00")}
"""Plausible ranges for the numbers the generator would otherwise draw from the whole type."""
_FOREIGN_NULLS = {"BackorderOrderID": 0.9, "PickedByPersonID": 0.1, "AlternateContactPersonID": 0.5,
                  "BuyingGroupID": 0.25, "PaymentMethodID": 0.3, "PurchaseOrderID": 0.5, "SupplierID": 0.8,
                  "InvoiceID": 0.4, "CustomerID": 0.3, "OrderID": 0.02}
"""A nullable foreign key's share of NULLs (the generator fills a nullable foreign key fully otherwise)."""
_FLAGS = {"IsOnCreditHold": 0.03, "IsStatementSent": 0.0, "IsCreditNote": 0.0, "IsUndersupplyBackordered": 0.9,
          "IsOrderFinalized": 0.9, "IsOrderLineFinalized": 0.9, "IsCompressed": 0.1}
"""Share of rows with the flag on."""
_MOSTLY_NULL = {"Comments", "DeliveryInstructions", "InternalComments", "CreditNoteReason", "BackorderOrderID",
                "AlternateContactPersonID", "DeliveryAddressLine2", "PostalAddressLine2", "FinalizationDate"}
_DELIVERED = ('{"Events": [{"Event": "Ready for collection", "EventTime": "2020-01-02T07:00:00", "ConNote": "EAN-125-1051"},'
              ' {"Event": "DeliveryAttempt", "EventTime": "2020-01-02T14:00:00", "ConNote": "EAN-125-1051", '
              '"DriverID": 15, "Latitude": 41.3, "Longitude": -84.8, "Status": "Delivered"}], '
              '"DeliveredWhen": "2020-01-02T14:00:00", "ReceivedBy": "Aakriti Byrraju"}')


def shape(table: Table) -> tuple[ColumnStatistics, ...]:
    """The histograms a generated WWI table's columns follow (see the module doc)."""
    out = []
    for column in table.columns:
        name, kind = column.name, column.type.name.casefold()
        if name == "ValidTo":
            out.append(_values(name, {END_OF_TIME: 1.0}))
        elif name == "AccountOpenedDate":
            out.append(_days(name, date(2013, 1, 1), date(2019, 12, 1)))
        elif kind in ("date", "datetime2"):
            out.append(_days(name, *PERIOD, nulls=0.6 if name in _MOSTLY_NULL and column.nullable else
                             0.05 if column.nullable else 0.0, clock=kind == "datetime2"))
        elif kind == "bit" and name in _FLAGS:
            out.append(_values(name, {"1": _FLAGS[name], "0": 1 - _FLAGS[name]}))
        elif name == "TaxRate":
            out.append(_values(name, {"15.000": 0.9, "10.000": 0.1}))
        elif name == "OutstandingBalance":
            out.append(_values(name, {"0.00": 0.8, "125.50": 0.1, "2070.00": 0.1}))
        elif name in _NUMBERS:
            low, high = _NUMBERS[name]
            out.append(_range(name, low, high, nulls=0.1 if column.nullable else 0.0))
        elif name in _FOREIGN_NULLS and column.nullable and kind == "int":
            parent = next((f"{fk.ref_schema}.{fk.ref_table}" for fk in table.foreign_keys if fk.columns == (name,)), "")
            out.append(_range(name, "1", str(ROWS.get(parent, 50)), nulls=_FOREIGN_NULLS[name]))
        elif name == "DeliveryMethodID" and table.name == "Customers":
            out.append(_values(name, {"3": 0.9, "1": 0.04, "2": 0.04, "4": 0.02}))
        elif name == "ReturnedDeliveryData":
            out.append(_values(name, {None: 0.1, _DELIVERED: 0.9}))
        elif name in _MOSTLY_NULL and column.nullable and kind == "nvarchar":
            out.append(_values(name, {None: 0.9, "Please deliver to the back door": 0.05, "Call before delivery": 0.05}))
    return tuple(out)


WIDEWORLDIMPORTERS = GeneratedCorpus(
    name="wideworldimporters",
    source=WWI,
    database="data_wideworldimporters",
    rows=ROWS,
    default_rows=20,
    seed=7,
    reference=REFERENCE,
    functions=FUNCTIONS,
    settle=SETTLE,
    shape=shape,
    defaults=True,
    computed=True,
)


def create_wideworldimporters(mssql, database: str = WIDEWORLDIMPORTERS.database) -> str:
    return create_generated(mssql, WIDEWORLDIMPORTERS, database).database
