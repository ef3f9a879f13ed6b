{#- A view whose query was translated to TiDB SQL. -#}
{% for note in v.notes %}
-- {{ note }}
{% endfor %}
CREATE OR REPLACE VIEW {{ v.name }}{% if v.columns %} ({{ v.columns | join(", ") }}){% endif %} AS
{{ v.body }};
