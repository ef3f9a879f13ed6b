{#- A sequence on MySQL, which has none: a one-row table of the next value, drawn with LAST_INSERT_ID(expr)
    (https://dev.mysql.com/doc/refman/8.4/en/information-functions.html#function_last-insert-id).
    Both statements may run again (a rerun of the file, `data copy --create-tables`): the row is seeded once. -#}
{% for note in s.notes %}
-- {{ note }}
{% endfor %}
-- Draw a value (it is then LAST_INSERT_ID()): {{ s.draw }}; SELECT LAST_INSERT_ID();
CREATE TABLE IF NOT EXISTS {{ s.name }} (next_value BIGINT NOT NULL{% if s.bounds %} CHECK (next_value BETWEEN {{ s.bounds[0] }} AND {{ s.bounds[1] }}){% endif %}) ENGINE=InnoDB;
INSERT INTO {{ s.name }} (next_value) SELECT {{ s.start }} FROM DUAL WHERE NOT EXISTS (SELECT * FROM {{ s.name }});
