"""Each construct of the procedure runner on real targets (MariaDB, then TiDB): a procedure's body run statement by
statement on one connection, as the application will run it, with SQL Server's documented answers.

https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql (parameters, defaults, OUTPUT, RETURN),
https://learn.microsoft.com/sql/t-sql/language-elements/try-catch-transact-sql (TRY/CATCH, THROW, XACT_STATE),
https://learn.microsoft.com/sql/t-sql/language-elements/declare-cursor-transact-sql (cursors, @@FETCH_STATUS),
https://learn.microsoft.com/sql/t-sql/functions/rowcount-transact-sql (@@ROWCOUNT counts rows matched).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from procedure_helpers import OnTarget, errors, read_script, sets

from sqlsrv2tidb.procedures.calls import Limits, Runner, ran_too_long

SCRIPT = """
CREATE TABLE dbo.Orders (OrderID int NOT NULL PRIMARY KEY, Customer nvarchar(10) NOT NULL, Amount money NOT NULL,
                         Status tinyint NOT NULL DEFAULT 0);
GO
CREATE TABLE dbo.Log (LogID int IDENTITY(1,1) NOT NULL PRIMARY KEY, Message nvarchar(400) NULL, Number int NULL);
GO
CREATE PROCEDURE dbo.Defaults @a int, @b nvarchar(10) = N'x', @c int = NULL
AS SELECT @a AS a, @b AS b, @c AS c
GO
CREATE PROCEDURE dbo.Assignments @n int
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @i int = @n * 2, @s varchar(3) = 'abcdef', @c char(4) = 'ab', @d decimal(5,2) = 2.345, @t int;
    DECLARE @whole int;
    SET @whole = 7.9;
    SET @i += 1;
    SELECT @t = COUNT(*) FROM dbo.Orders WHERE Amount > @n;
    SELECT @i AS i, @s AS s, @c AS c, @d AS d, @t AS t, @whole AS whole;
END
GO
CREATE PROCEDURE dbo.LastRow
AS
BEGIN
    DECLARE @id int = -1, @who nvarchar(10);
    SELECT @id = OrderID, @who = Customer FROM dbo.Orders ORDER BY OrderID;
    SELECT @id AS id, @who AS who;
    SELECT @id = OrderID FROM dbo.Orders WHERE OrderID > 1000;
    SELECT @id AS kept;
END
GO
CREATE PROCEDURE dbo.Classify @x int
AS
BEGIN
    IF @x IS NULL
        SELECT 'null' AS what
    ELSE IF @x < 0
        SELECT 'negative' AS what
    ELSE
    BEGIN
        IF EXISTS (SELECT 1 FROM dbo.Orders WHERE OrderID = @x)
            SELECT 'an order' AS what
        ELSE
            SELECT 'no order' AS what
    END
END
GO
CREATE PROCEDURE dbo.Counting @n int
AS
BEGIN
    DECLARE @i int = 0, @sum int = 0;
    WHILE @i < @n
    BEGIN
        SET @i = @i + 1;
        IF @i = 3 CONTINUE;
        SET @sum = @sum + @i;
        IF @i >= 8 BREAK;
    END
    SELECT @i AS i, @sum AS total;
    RETURN @sum;
    SELECT 'never' AS after_return;
END
GO
CREATE PROCEDURE dbo.Forever
AS
BEGIN
    DECLARE @i int = 0;
    WHILE 1 = 1 SET @i = @i + 1;
END
GO
CREATE PROCEDURE dbo.AddOrder @OrderID int, @Customer nvarchar(10), @Amount money, @Fail bit = 0
AS
BEGIN
    SET NOCOUNT ON;
    BEGIN TRAN;
    INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (@OrderID, @Customer, @Amount);
    BEGIN TRAN;
    INSERT INTO dbo.Log (Message, Number) VALUES (N'added', @OrderID);
    COMMIT;
    SELECT @@TRANCOUNT AS open_transactions;
    IF @Fail = 1
        ROLLBACK;
    ELSE
        COMMIT;
    SELECT @@TRANCOUNT AS after;
END
GO
CREATE PROCEDURE dbo.Savepoints
AS
BEGIN
    BEGIN TRAN;
    INSERT INTO dbo.Log (Message, Number) VALUES (N'kept', 1);
    SAVE TRAN before_second;
    INSERT INTO dbo.Log (Message, Number) VALUES (N'undone', 2);
    ROLLBACK TRAN before_second;
    COMMIT;
END
GO
CREATE PROCEDURE dbo.Guarded @OrderID int, @Amount money
AS
BEGIN
    SET NOCOUNT ON;
    BEGIN TRY
        BEGIN TRAN;
        INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (@OrderID, N'G', @Amount);
        IF @Amount < 0
            THROW 50001, N'negative amount', 3;
        COMMIT;
        RETURN 0;
    END TRY
    BEGIN CATCH
        IF @@TRANCOUNT > 0 ROLLBACK;
        INSERT INTO dbo.Log (Message, Number) VALUES (ERROR_MESSAGE(), ERROR_NUMBER());
        SELECT ERROR_NUMBER() AS number, ERROR_STATE() AS state, ERROR_PROCEDURE() AS procedure_name;
        RETURN -1;
    END CATCH
END
GO
CREATE PROCEDURE dbo.Rethrows
AS
BEGIN
    BEGIN TRY
        RAISERROR(N'inner %s %d', 16, 2, N'problem', 7);
    END TRY
    BEGIN CATCH
        SELECT ERROR_MESSAGE() AS message, ERROR_SEVERITY() AS severity;
        THROW;
    END CATCH
    SELECT 'not reached' AS x;
END
GO
CREATE PROCEDURE dbo.Goes
AS
BEGIN
    RAISERROR(N'just so you know', 10, 1);
    PRINT N'printed ' + N'here';
    RAISERROR(N'an error the caller sees', 16, 1);
    SELECT 'went on' AS after;
    THROW 50002, N'stops here', 1;
    SELECT 'not reached' AS after;
END
GO
CREATE PROCEDURE dbo.Doomed
AS
BEGIN
    SET XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRAN;
        INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (1, N'dup', 1);
        COMMIT;
    END TRY
    BEGIN CATCH
        SELECT XACT_STATE() AS state, ERROR_NUMBER() AS number;
        IF XACT_STATE() <> 0 ROLLBACK;
    END CATCH
END
GO
CREATE PROCEDURE dbo.Counts
AS
BEGIN
    DECLARE @updated int, @error int, @after int;
    UPDATE dbo.Orders SET Status = Status WHERE Customer = N'A';
    SET @updated = @@ROWCOUNT;
    INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (1, N'dup', 1);
    SET @error = @@ERROR;
    SET @after = @@ERROR;
    SELECT @updated AS updated, @error AS error, @after AS after;
END
GO
CREATE PROCEDURE dbo.Temporary
AS
BEGIN
    CREATE TABLE #big (OrderID int, Amount money);
    INSERT #big (OrderID, Amount) SELECT OrderID, Amount FROM dbo.Orders WHERE Amount >= 5;
    DECLARE @seen TABLE (OrderID int);
    INSERT INTO @seen (OrderID) SELECT OrderID FROM #big;
    SELECT OrderID, Amount * 2 AS twice INTO #copy FROM #big;
    SELECT b.OrderID, c.twice FROM #big AS b JOIN #copy AS c ON c.OrderID = b.OrderID
    WHERE b.OrderID IN (SELECT OrderID FROM @seen) ORDER BY b.OrderID;
END
GO
CREATE PROCEDURE dbo.Walk
AS
BEGIN
    DECLARE @id int, @amount money, @list nvarchar(200) = N'';
    DECLARE walker CURSOR LOCAL FAST_FORWARD FOR SELECT OrderID, Amount FROM dbo.Orders ORDER BY OrderID;
    OPEN walker;
    FETCH NEXT FROM walker INTO @id, @amount;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        SET @list = @list + CONVERT(nvarchar(10), @id) + N';';
        FETCH NEXT FROM walker INTO @id, @amount;
    END
    CLOSE walker;
    DEALLOCATE walker;
    DECLARE back CURSOR SCROLL FOR SELECT OrderID FROM dbo.Orders ORDER BY OrderID;
    OPEN back;
    FETCH LAST FROM back INTO @id;
    DECLARE @last int = @id;
    FETCH PRIOR FROM back INTO @id;
    DECLARE @prior int = @id;
    FETCH ABSOLUTE 1 FROM back INTO @id;
    SELECT @list AS list, @last AS last_id, @prior AS prior_id, @id AS first_id;
    CLOSE back;
    DEALLOCATE back;
END
GO
CREATE PROCEDURE dbo.Total @Customer nvarchar(10), @Total money OUTPUT, @Orders int = 0 OUTPUT
AS
BEGIN
    SELECT @Total = SUM(Amount), @Orders = COUNT(*) FROM dbo.Orders WHERE Customer = @Customer;
    SELECT OrderID FROM dbo.Orders WHERE Customer = @Customer ORDER BY OrderID;
    RETURN @Orders;
END
GO
CREATE PROCEDURE dbo.Caller @Customer nvarchar(10)
AS
BEGIN
    DECLARE @sum money, @n int, @rc int;
    EXEC @rc = dbo.Total @Customer, @sum OUTPUT, @Orders = @n OUTPUT;
    CREATE TABLE #ids (OrderID int);
    INSERT INTO #ids (OrderID) EXEC dbo.Total @Customer = @Customer, @Total = @sum OUTPUT;
    SELECT @sum AS total, @n AS orders, @rc AS status, (SELECT COUNT(*) FROM #ids) AS inserted;
END
GO
CREATE PROCEDURE dbo.Literal @x int
AS
BEGIN
    EXEC sp_executesql N'SELECT OrderID FROM dbo.Orders WHERE OrderID = @id', N'@id int', @id = @x;
    EXEC ('SELECT COUNT(*) AS n FROM dbo.Orders');
END
GO
CREATE PROCEDURE dbo.Dynamic @table sysname
AS
BEGIN
    DECLARE @sql nvarchar(200) = N'SELECT * FROM ' + @table;
    EXEC (@sql);
END
GO
CREATE PROCEDURE dbo.Jumps
AS
BEGIN
    GOTO done;
    SELECT 1;
    done:
    SELECT 2;
END
GO
CREATE PROCEDURE dbo.CallsJumps
AS
    EXEC dbo.Jumps
GO
CREATE PROCEDURE dbo.Converts @text varchar(10)
AS
BEGIN
    DECLARE @i int;
    INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (1, N'dup', 1);
    SELECT 'after a statement error' AS went_on;
    SET @i = @text;
    SELECT 'after a conversion error' AS not_reached;
END
GO
CREATE PROCEDURE dbo.Forms (@n int = 3, @name nvarchar(50) = N'a, ''b''', @when datetime = '2024-01-05')
AS
BEGIN
    SET NOCOUNT ON
    DECLARE @t TABLE (id int IDENTITY(1,1) PRIMARY KEY, v nvarchar(10));
    INSERT INTO @t (v) VALUES (N'x'), (N'y'), (N'z');
    DECLARE @c int = @@ROWCOUNT;
    UPDATE @t SET v = UPPER(v) WHERE id <= 2;
    DECLARE @u int = @@ROWCOUNT;
    INSERT INTO dbo.Log (Message, Number) VALUES (@name, @n);
    DECLARE @id int = SCOPE_IDENTITY();
    WHILE (SELECT COUNT(*) FROM @t) > 1
    BEGIN
        DELETE TOP (1) FROM @t WHERE v <> N'z';
        IF (SELECT COUNT(*) FROM @t) = 2 CONTINUE;
    END
    DECLARE @s nvarchar(100) = UPPER(@name) + N'-' + CAST(@n AS nvarchar(10));
    DECLARE @d datetime = DATEADD(day, @n, @when);
    SELECT TOP (@n) v FROM @t ORDER BY v;
    SELECT @c AS c, @u AS u, @id AS id, @s AS s, @d AS d, (SELECT Message FROM dbo.Log WHERE LogID = @id) AS logged;
    BEGIN TRY
        BEGIN TRY
            THROW 50010, N'inner', 1;
        END TRY
        BEGIN CATCH
            RAISERROR(N'caught %s, then %d', 16, 1, N'inner', @n);
        END CATCH
    END TRY
    BEGIN CATCH
        SELECT ERROR_MESSAGE() AS outer_message, ERROR_NUMBER() AS number;
    END CATCH
    IF @n > 100 RETURN 5 ELSE RETURN 6;
END
GO
"""

ROWS = ("INSERT INTO Orders (OrderID, Customer, Amount) VALUES (1, 'A', 10), (2, 'A', 5.5), (3, 'B', 7), "
        "(4, 'C', 2)")


@pytest.fixture
def on_target(target, target_database, tmp_path):
    capture = read_script(SCRIPT, tmp_path)
    here = OnTarget(target, target_database, capture, Limits(loop_iterations=200))
    conn = target.connect(target_database)
    with conn.cursor() as cur:
        cur.execute(ROWS)
    conn.commit()
    conn.close()
    yield here
    here.close()


def test_parameters_take_positions_names_and_defaults(on_target):
    assert sets(on_target.call("dbo.Defaults", 5)) == [[(5, "x", None)]]
    assert sets(on_target.call("dbo.Defaults", 5, c=9)) == [[(5, "x", 9)]]
    assert sets(on_target.call("dbo.Defaults", 6, "y", 1)) == [[(6, "y", 1)]]
    missing = on_target.call("dbo.Defaults", b="z")
    assert errors(missing) == [(201, "Procedure or function 'dbo.Defaults' expects parameter '@a', which was not supplied.")]
    assert missing.round_trips == 0


def test_variables_take_their_declared_types(on_target):
    (row,) = sets(on_target.call("dbo.Assignments", 4))[0]
    # @n * 2 + 1; varchar(3) truncates; char(4) pads; decimal(5,2) rounds; an int assignment truncates 7.9.
    assert row == (9, "abc", "ab  ", Decimal("2.35"), 3, 7)


def test_select_assignment_keeps_the_last_row_and_keeps_its_value_without_rows(on_target):
    assert sets(on_target.call("dbo.LastRow")) == [[(4, "C")], [(4,)]]


def test_if_else_and_a_condition_only_the_server_answers(on_target):
    answers = {x: sets(on_target.call("dbo.Classify", x))[0][0][0] for x in (None, -5, 2, 99)}
    assert answers == {None: "null", -5: "negative", 2: "an order", 99: "no order"}


def test_while_break_continue_and_return(on_target):
    result = on_target.call("dbo.Counting", 20)
    # 1..8 without 3; RETURN ends the procedure before its last SELECT.
    assert sets(result) == [[(8, 33)]] and result.return_status == 33
    # The loop's arithmetic is the client's: one round trip, the final SELECT's.
    assert result.round_trips == 1
    assert on_target.call("dbo.Counting", 0).return_status == 0


def test_a_loop_past_its_bound_stops_with_an_error(on_target):
    result = on_target.call("dbo.Forever")
    assert result.aborted and "turned more than 200 times" in result.errors[0].message


def test_a_call_past_its_time_bound_stops_with_an_error(on_target):
    """compare bounds a call by its statement timeout (`Limits.seconds`); 0 s stops it at its first statement, whatever
    the machine's speed."""
    runner = Runner(on_target.session, on_target.procedures.resolve, Limits(seconds=0),
                    dynamic=on_target.procedures.dynamic)
    result = runner.call(on_target.procedures.program("dbo.Forever"), [])
    assert result.aborted and ran_too_long(result), result.errors
    assert result.statements == 1


def test_nested_transactions_commit_and_roll_back_as_one(on_target):
    committed = on_target.call("dbo.AddOrder", 10, "T", 1)
    assert sets(committed) == [[(1,)], [(0,)]]
    rolled_back = on_target.call("dbo.AddOrder", 11, "T", 1, Fail=1)
    assert sets(rolled_back) == [[(1,)], [(0,)]]
    assert on_target.rows("SELECT OrderID FROM Orders WHERE Customer = 'T'") == [(10,)]
    assert on_target.rows("SELECT Number FROM Log ORDER BY LogID") == [(10,)]


def test_a_savepoint_undoes_only_what_came_after_it(on_target):
    assert on_target.call("dbo.Savepoints").ok
    assert on_target.rows("SELECT Message FROM Log ORDER BY LogID") == [("kept",)]


def test_try_catch_takes_throw_and_the_targets_own_errors(on_target):
    thrown = on_target.call("dbo.Guarded", 20, -1)
    assert thrown.ok and thrown.return_status == -1
    assert sets(thrown) == [[(50001, 3, "dbo.Guarded")]]
    duplicate = on_target.call("dbo.Guarded", 1, 5)  # OrderID 1 exists: the target refuses the row
    assert duplicate.ok and duplicate.return_status == -1
    assert sets(duplicate) == [[(2627, 1, "dbo.Guarded")]]  # SQL Server's number for a duplicate key
    assert on_target.call("dbo.Guarded", 21, 5).return_status == 0
    assert on_target.rows("SELECT OrderID FROM Orders WHERE Customer = 'G'") == [(21,)]
    logged = on_target.rows("SELECT Number, Message FROM Log ORDER BY LogID")
    assert [n for n, _ in logged] == [50001, 2627] and logged[0][1] == "negative amount"


def test_raiserror_formats_and_throw_rethrows_to_the_caller(on_target):
    result = on_target.call("dbo.Rethrows")
    assert sets(result) == [[("inner problem 7", 16)]]
    assert errors(result) == [(50000, "inner problem 7")] and result.aborted


def test_what_reaches_the_caller_outside_try(on_target):
    result = on_target.call("dbo.Goes")
    # Severity 10 is a message; 16 is an error the caller sees, and the procedure goes on; THROW ends it.
    assert result.messages == ["just so you know", "printed here"]
    assert errors(result) == [(50000, "an error the caller sees"), (50002, "stops here")]
    assert sets(result) == [[("went on",)]] and result.aborted


def test_xact_abort_dooms_the_transaction_in_catch(on_target):
    result = on_target.call("dbo.Doomed")
    assert sets(result) == [[(-1, 2627)]] and result.ok
    assert on_target.rows("SELECT COUNT(*) FROM Orders WHERE Customer = 'dup'") == [(0,)]


def test_rowcount_counts_rows_matched_and_error_is_the_last_statements(on_target):
    result = on_target.call("dbo.Counts")
    # UPDATE ... SET Status = Status matches 2 rows and changes none: @@ROWCOUNT is 2 (rows matched).
    # The duplicate INSERT fails outside TRY: the caller sees the error and the procedure goes on.
    assert sets(result) == [[(2, 2627, 0)]]
    assert [e.number for e in result.errors] == [2627] and not result.aborted


def test_temp_tables_and_table_variables_live_for_the_call(on_target):
    result = on_target.call("dbo.Temporary")
    assert sets(result) == [[(1, Decimal("20.0000")), (2, Decimal("11.0000")), (3, Decimal("14.0000"))]]
    again = on_target.call("dbo.Temporary")  # the temp tables were dropped when the procedure ended
    assert again.ok and sets(again) == sets(result)


def test_cursors_fetch_their_rows_on_the_client(on_target):
    result = on_target.call("dbo.Walk")
    assert sets(result) == [[("1;2;3;4;", 4, 3, 1)]]
    # Each cursor's query is one round trip, however many rows are fetched.
    assert result.round_trips <= 2 + 4 + 1


def test_output_parameters_return_status_and_insert_exec(on_target):
    alone = on_target.call("dbo.Total", "A", None)
    assert alone.output == {"@Total": Decimal("15.5000"), "@Orders": 2} and alone.return_status == 2
    assert sets(alone) == [[(1,), (2,)]]
    nested = on_target.call("dbo.Caller", "A")
    # The callee's first result set reaches the caller; the second call's rows went into #ids.
    assert sets(nested) == [[(1,), (2,)], [(Decimal("15.5000"), 2, 2, 2)]]


def test_sp_executesql_and_exec_of_literal_sql(on_target):
    assert sets(on_target.call("dbo.Literal", 3)) == [[(3,)], [(4,)]]


def test_table_variables_scope_identity_remote_conditions_and_nested_try(on_target):
    from datetime import datetime

    result = on_target.call("dbo.Forms", 2)
    assert result.ok and result.return_status == 6
    first, second, third = sets(result)
    assert first == [("z",)]  # the loop deleted until one row was left; TOP (@n) of it
    # @@ROWCOUNT of a multi-row INSERT and an UPDATE of a table variable; SCOPE_IDENTITY() of the Log row; a date
    # variable returned as a column keeps its type (datetime, not text).
    assert second == [(3, 2, 1, "A, 'B'-2", datetime(2024, 1, 7), "a, 'b'")]
    assert third == [("caught inner, then 2", 50000)]


def test_a_conversion_error_ends_the_call_where_a_statement_error_does_not(on_target):
    result = on_target.call("dbo.Converts", "12")
    assert sets(result) == [[("after a statement error",)], [("after a conversion error",)]]
    refused = on_target.call("dbo.Converts", "abc")
    # A duplicate key ends its statement only; a failed conversion ends the batch (SQL Server's error 245).
    assert [e.number for e in refused.errors] == [2627, 245] and refused.aborted
    assert sets(refused) == [[("after a statement error",)]]


def test_what_cannot_run_is_said_with_its_construct_and_line(on_target):
    jumps = on_target.procedures.summary("dbo.Jumps")
    assert [b.construct for b in jumps.blockers] == ["GOTO", "GOTO"]
    assert jumps.program.where(jumps.blockers[0].line).endswith(f"schema.sql:{_line_of('GOTO done;')}")
    caller = on_target.procedures.summary("dbo.CallsJumps")
    assert not caller.runs and "EXEC dbo.Jumps" in caller.blockers[0].message
    refused = on_target.call("dbo.Jumps")
    assert refused.aborted and refused.round_trips == 0 and "cannot run on the target" in refused.errors[0].message


def test_sql_built_at_run_time_is_translated_when_the_call_reaches_it(on_target):
    dynamic = on_target.procedures.summary("dbo.Dynamic")
    assert dynamic.runs and any("SQL built at run time" in w for w in dynamic.writes)  # known only when it runs
    (rows,) = sets(on_target.call("dbo.Dynamic", "dbo.Orders"))
    assert sorted(rows) == [(1, "A", Decimal("10.0000"), 0), (2, "A", Decimal("5.5000"), 0), (3, "B", Decimal("7.0000"), 0),
                            (4, "C", Decimal("2.0000"), 0)]
    missing = on_target.call("dbo.Dynamic", "dbo.NoSuchTable")
    assert [e.number for e in missing.errors] == [208]  # the target's error for the text, with SQL Server's number


def _line_of(text: str) -> int:
    return next(n for n, line in enumerate(SCRIPT.splitlines(), start=1) if text in line)
