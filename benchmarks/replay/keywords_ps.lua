-- The statements of keywords.lua, prepared once per connection and executed with bound values, as
-- sysbench's own OLTP scripts do: with --db-ps-mode=auto they go out as server-side prepared
-- statements (COM_STMT_PREPARE once, COM_STMT_EXECUTE with binary values); with --db-ps-mode=disable
-- sysbench emulates them, sending each execution as text with the values written in.
sysbench.cmdline.options = {
  statement = {"insert or select", "insert"},
}

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  if sysbench.opt.statement == "insert" then
    stmt = con:prepare("INSERT INTO keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order) " ..
                       "VALUES (?, ?, ?, ?, 1, 1, 1)")
    params = {}
    for i = 1, 4 do params[i] = stmt:bind_create(sysbench.sql.type.INT) end
  else
    stmt = con:prepare("SELECT d_order, p_count FROM keywords WHERE e_type = ? AND e_id = ?")
    params = {}
    for i = 1, 2 do params[i] = stmt:bind_create(sysbench.sql.type.INT) end
  end
  stmt:bind_param(unpack(params))
end

function thread_done()
  stmt:close()
  con:disconnect()
end

function event()
  params[1]:set(sysbench.rand.uniform(1, 8))
  params[2]:set(sysbench.rand.uniform(1, 2100000000))
  if sysbench.opt.statement == "insert" then
    params[3]:set(sysbench.rand.uniform(1, 3))
    params[4]:set(sysbench.rand.uniform(1, 2100000000))
  end
  stmt:execute()
end
