{#- A TiDB sequence (https://docs.pingcap.com/tidb/stable/sql-statement-create-sequence). -#}
{% for note in s.notes %}
-- {{ note }}
{% endfor %}
CREATE SEQUENCE {{ s.name }} START WITH {{ s.start }} INCREMENT BY {{ s.increment }} MINVALUE {{ s.minimum }} MAXVALUE {{ s.maximum }} {{ ("CACHE " ~ s.cache) if s.cache else "NOCACHE" }} {{ "CYCLE" if s.cycle else "NOCYCLE" }};
