{#- A sequence on MySQL, which has none: a one-row table of the next value, drawn with LAST_INSERT_ID(expr)
    (https://dev.mysql.com/doc/refman/8.4/en/information-functions.html#function_last-insert-id). -#}
{% for note in s.notes %}
-- {{ note }}
{% endfor %}
-- Draw a value (it is then LAST_INSERT_ID()): {{ s.draw }}; SELECT LAST_INSERT_ID();
CREATE TABLE {{ s.name }} (next_value BIGINT NOT NULL{% if s.bounds %} CHECK (next_value BETWEEN {{ s.bounds[0] }} AND {{ s.bounds[1] }}){% endif %}) ENGINE=InnoDB;
INSERT INTO {{ s.name }} (next_value) VALUES ({{ s.start }});
