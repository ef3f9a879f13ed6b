-- sysbench script equivalent to the replay benchmark: seed 000's single-row INSERT into keywords
-- (e_type 1..8, e_id 1..2.1e9, s_type 1..3, r_id 1..2.1e9) or a point SELECT on its key prefix,
-- one text-protocol statement per event, as the replay engine sends them.
sysbench.cmdline.options = {
  statement = {"insert or select", "insert"},
}

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function thread_done()
  con:disconnect()
end

function event()
  if sysbench.opt.statement == "insert" then
    con:query(string.format(
      "INSERT INTO keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order) " ..
      "VALUES (%d, %d, %d, %d, 1, 1, 1)",
      sysbench.rand.uniform(1, 8), sysbench.rand.uniform(1, 2100000000),
      sysbench.rand.uniform(1, 3), sysbench.rand.uniform(1, 2100000000)))
  else
    con:query(string.format(
      "SELECT d_order, p_count FROM keywords WHERE e_type = %d AND e_id = %d",
      sysbench.rand.uniform(1, 8), sysbench.rand.uniform(1, 2100000000)))
  end
end
