{#- A statement only TiDB understands, in its own file (no executable-comment form exists). -#}
{% for note in notes %}
-- {{ note }}
{% endfor %}
{{ sql }};
