{#- Code TiDB cannot run, kept as comments: nothing here is executed. -#}
-- ---------------------------------------------------------------------------------------------
-- {{ m.title }}
{% for note in m.notes %}
-- {{ note }}
{% endfor %}
-- ---------------------------------------------------------------------------------------------
{% for line in m.lines %}
--   {{ line }}
{% endfor %}
