"""Driver calls (sp_executesql, sp_prepexec/sp_execute, cursors, procedure RPCs) unwrap to statement and values."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.capture.wrappers import Unwrapper, procedure_name, wrapper_name
from sqlsrv2tidb.model import Parameter
from sqlsrv2tidb.tsql.literals import NotALiteral, literal_value, tokens, typed_value


@pytest.mark.parametrize(("text", "value"), [
    ("N'it''s'", "it's"),
    ("'plain'", "plain"),
    ("N''", ""),
    ("42", 42),
    ("-7", -7),
    ("+3", 3),
    ("1.50", 1.5),
    ("1.5E3", 1500.0),
    ("0x0aFF", "0x0AFF"),
    ("0x", "0x"),
    ("NULL", None),
    ("null", None),
    ("DEFAULT", None),
])
def test_literal_values(text, value):
    assert literal_value(tokens(text)) == value


@pytest.mark.parametrize("text", ["getdate()", "@p1", "1 + 2", "dbo.f(1)"])
def test_expressions_are_not_literals(text):
    with pytest.raises(NotALiteral):
        literal_value(tokens(text))


def test_values_are_normalised_for_their_declared_types():
    assert typed_value("20040101", "datetime") == "2004-01-01T00:00:00"
    assert typed_value("20040101", "date") == "2004-01-01"
    assert typed_value("2024-12-02 09:30:00.1234567", "datetime2(7)") == "2024-12-02T09:30:00.123456"
    assert typed_value("b3a023d3-f7f8-4d17-8524-59471e098205", "uniqueidentifier") == "B3A023D3-F7F8-4D17-8524-59471E098205"
    assert typed_value("not a date", "datetime") == "not a date"
    assert typed_value("20040101", "nvarchar(8)") == "20040101"
    assert typed_value(5, "datetime") == 5


def test_sp_executesql_positional_values():
    call = Unwrapper().unwrap("exec sp_executesql N'SELECT name FROM dbo.t WHERE id = @id AND code = @c',"
                              "N'@id int,@c nvarchar(50)',5,N'O''Brien'")
    assert call.statement == "SELECT name FROM dbo.t WHERE id = @id AND code = @c"
    assert call.parameters == (Parameter("@id", "int"), Parameter("@c", "nvarchar(50)"))
    assert call.values == (5, "O'Brien")
    assert call.wrapper == "sp_executesql" and call.problem is None


def test_sp_executesql_named_values_in_any_order_and_missing_ones_null():
    call = Unwrapper().unwrap("EXEC sp_executesql N'SELECT @p0, @p1, @p2', N'@p0 nvarchar(4000),@p1 int,@p2 bit', "
                              "@p1=7, @p0=N'Charity'")
    assert call.values == ("Charity", 7, None)


def test_sp_executesql_with_named_statement_arguments_and_no_parameters():
    assert Unwrapper().unwrap("exec sys.sp_executesql @stmt=N'SELECT 1'").statement == "SELECT 1"
    call = Unwrapper().unwrap("exec [sys].[sp_executesql] @stmt = N'SELECT @a', @params = N'@a int', @a = 3")
    assert (call.statement, call.values) == ("SELECT @a", (3,))


def test_output_parameters_pass_variables_whose_values_are_unknown():
    call = Unwrapper().unwrap("declare @out int\nexec sp_executesql N'SELECT @o = COUNT(*) FROM t WHERE a = @a',"
                              "N'@a int,@o int OUTPUT',@a=1,@o=@out OUTPUT\nselect @out")
    assert call.parameters == (Parameter("@a", "int"), Parameter("@o", "int"))
    assert call.values == (1, None)


def test_prepexec_and_execute_share_a_handle_within_one_session_only():
    u = Unwrapper()
    prep = u.unwrap("declare @p1 int\nset @p1=5\nexec sp_prepexec @p1 output,N'@P1 nvarchar(20)',"
                    "N'SELECT * FROM t WHERE a = @P1',N'ABC'\nselect @p1", session_id=55)
    assert (prep.statement, prep.values, prep.wrapper) == ("SELECT * FROM t WHERE a = @P1", ("ABC",), "sp_prepexec")
    again = u.unwrap("exec sp_execute 5,N'DEF'", session_id=55)
    assert (again.statement, again.values, again.wrapper) == ("SELECT * FROM t WHERE a = @P1", ("DEF",), "sp_execute")
    named = u.unwrap("exec sp_execute 5,@P1=N'GHI'", session_id=55)
    assert named.values == ("GHI",)
    other = u.unwrap("exec sp_execute 5,N'DEF'", session_id=56)
    assert (other.statement, other.problem, other.detail) == (None, "unknown_handle", "handle 5")
    assert u.unwrap("exec sp_unprepare 5", session_id=55).statement is None
    assert u.unwrap("exec sp_execute 5,N'DEF'", session_id=55).problem == "unknown_handle"


def test_prepare_without_a_visible_handle_resolves_when_it_is_the_sessions_only_one():
    u = Unwrapper()
    prep = u.unwrap("EXEC sp_prepexec @P1 output, N'@P1 nvarchar(128), @P2 nvarchar(100)', "
                    "N'SELECT database_id, name FROM sys.databases WHERE name=@P1 AND state_desc = @P2', "
                    "@P1 = 'tempdb', @P2 = 'ONLINE'", session_id=57)
    assert prep.values == ("tempdb", "ONLINE")
    assert u.unwrap("exec sp_execute 3,N'master',N'ONLINE'", session_id=57).values == ("master", "ONLINE")
    assert u.unwrap("exec sp_execute 3,N'model',N'ONLINE'", session_id=57).values == ("model", "ONLINE")


def test_sp_prepare_only_remembers_and_the_sql_text_action_can_resolve_an_unknown_handle():
    u = Unwrapper()
    assert u.unwrap("declare @p1 int\nset @p1=9\nexec sp_prepare @p1 output,N'@P1 int',N'DELETE FROM t WHERE id = @P1',1",
                    session_id=1).statement is None
    assert u.unwrap("exec sp_execute 9,12", session_id=1).values == (12,)
    via_action = u.unwrap("exec sp_execute 77,3", session_id=2, sql_text="(@P1 int)UPDATE t SET a = 1 WHERE id = @P1")
    assert (via_action.statement, via_action.values) == ("UPDATE t SET a = 1 WHERE id = @P1", (3,))


def test_cursor_calls():
    u = Unwrapper()
    # The documentation's own sp_cursorprepexec, with options passed as OUTPUT variables before the values.
    call = u.unwrap("DECLARE @p1 int;\nSET @p1=-1;\nEXEC sp_cursorprepexec @p1 output,@p2 output,"
                    "N'@P1 varchar(255),@P2 varchar(255)',N'SELECT * FROM Sales.SalesOrderHeader AS h "
                    "WHERE h.OrderDate BETWEEN @P1 AND @P2',@p5 OUTPUT,@p6 OUTPUT,@p7 OUTPUT,'20040101','20050101'\n"
                    "SELECT @p1, @p2, @p5, @p6, @p7;", session_id=3)
    assert call.wrapper == "sp_cursorprepexec"
    assert call.statement.endswith("BETWEEN @P1 AND @P2")
    assert call.values == ("20040101", "20050101")  # varchar parameters: kept as written
    opened = u.unwrap("exec sp_cursoropen @p1 output,N'SELECT a FROM t WHERE b = @b',@p3 output,@p4 output,@p5 output,"
                      "N'@b int',17", session_id=3)
    assert (opened.statement, opened.parameters, opened.values) == ("SELECT a FROM t WHERE b = @b",
                                                                    (Parameter("@b", "int"),), (17,))
    plain = u.unwrap("exec sp_cursoropen @p1 output,N'SELECT a FROM t',@p3 output,@p4 output,@p5 output", session_id=3)
    assert (plain.statement, plain.values) == ("SELECT a FROM t", ())
    assert u.unwrap("declare @p1 int\nset @p1=4\nexec sp_cursorprepare @p1 output,N'@x int',N'SELECT a FROM t WHERE b = @x',1",
                    session_id=4).statement is None
    executed = u.unwrap("exec sp_cursorexecute 4,@p2 output,@p3 output,@p4 output,@p5 output,99", session_id=4)
    assert (executed.statement, executed.values) == ("SELECT a FROM t WHERE b = @x", (99,))
    for call_text in ("exec sp_cursorfetch 180150003,16,1,1", "exec sp_cursorclose 180150003", "exec sp_reset_connection"):
        result = u.unwrap(call_text, session_id=4)
        assert result.statement is None and result.problem is None


def test_stored_procedure_rpc_keeps_its_name_and_drops_profiler_noise():
    call = Unwrapper().unwrap("declare @p3 int\nexec dbo.MyProc @a=1,@b=N'x',@c=@p3 output\nselect @p3")
    assert call.statement == "exec dbo.MyProc @a=1,@b=N'x',@c=@p3 output"
    assert call.procedure == "dbo.MyProc" and call.wrapper is None
    assert procedure_name("EXECUTE [msdb].[dbo].[sp_agent_log_job_history] @job_id = @P1") == "msdb.dbo.sp_agent_log_job_history"
    assert procedure_name("EXEC msdb..sp_who 1") == "msdb..sp_who"
    assert procedure_name("SELECT 1") is None
    assert procedure_name("EXEC ('SELECT 1')") is None


def test_plain_sql_passes_through():
    call = Unwrapper().unwrap("  SELECT 1  ")
    assert (call.statement, call.wrapper, call.procedure) == ("SELECT 1", None, None)


def test_unreadable_calls_say_why():
    call = Unwrapper().unwrap("exec sp_executesql N'SELECT @d',N'@d datetime',@d=getdate()")
    assert call.statement is None and call.problem == "unreadable" and "getdate" in call.detail
    broken = Unwrapper().unwrap("exec sp_executesql")
    assert broken.statement is None and broken.problem == "unreadable"


def test_wrapper_names():
    assert wrapper_name("sys.sp_executesql") == "sp_executesql"
    assert wrapper_name("master.sys.SP_PREPEXEC") == "sp_prepexec"
    assert wrapper_name("sp_execute") == "sp_execute"
    assert wrapper_name("dbo.sp_executesql") is None  # a user procedure that happens to share the name
    assert wrapper_name("dbo.usp_x") is None
