{#- A secondary index, created after the data load. -#}
{% for note in ix.notes %}
-- {{ note }}
{% endfor %}
CREATE {{ "UNIQUE " if ix.unique }}INDEX {{ ix.name }} ON {{ ix.table }} ({{ ix.columns | join(", ") }}){% if ix.global_index %} /*T![global_index] GLOBAL */{% endif %};
