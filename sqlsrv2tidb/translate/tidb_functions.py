"""The names of TiDB's built-in functions, to check that a translated statement calls only those.

sqlglot writes any function it does not know as-is (`PATINDEX(...)`, `dbo.fn(...)`), and MySQL or
TiDB only reject it when the statement runs. The translator re-reads its own output and looks every
function call up here, so a T-SQL function or a user-defined one becomes a note instead.

The list is TiDB's own: the function-name constants of its parser
(`github.com/pingcap/tidb/pkg/parser` v0.0.0-20260418072757, `ast/functions.go`), without the
operator names, plus the aliases its grammar reads as functions (`INSERT`, `CHAR`, `STDDEV`, ...).
https://docs.pingcap.com/tidb/stable/functions-and-operators-overview
"""

from __future__ import annotations

_SCALAR = """
regexp regexp_like regexp_substr regexp_instr regexp_replace isnull values bit_count coalesce
greatest least interval abs acos asin atan atan2 ceil ceiling conv cos cot crc32 degrees exp floor
ln log log2 log10 pi pow power radians rand round sign sin sqrt tan truncate adddate addtime
convert_tz curdate current_date current_time current_timestamp curtime date date_add date_format
date_sub datediff day dayname dayofmonth dayofweek dayofyear extract from_days from_unixtime
get_format hour localtime localtimestamp makedate maketime microsecond minute month monthname now
period_add period_diff quarter sec_to_time second str_to_date subdate subtime sysdate time
time_format time_to_sec timediff timestamp timestampadd timestampdiff to_days to_seconds
unix_timestamp utc_date utc_time utc_timestamp week weekday weekofyear year yearweek last_day ascii
bin concat concat_ws convert elt export_set field format from_base64 insert instr lcase left length
locate lower lpad ltrim make_set mid oct octet_length ord position quote repeat replace reverse
right rtrim space strcmp substring substr substring_index to_base64 trim translate upper ucase hex
unhex rpad bit_length char char_length character_length find_in_set weight_string soundex charset
coercibility collation connection_id current_user current_role database found_rows
last_insert_id row_count schema session_user system_user user version tidb_version if ifnull
nullif any_value default inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4 is_ipv6 is_uuid sleep
uuid uuid_short uuid_to_bin bin_to_uuid get_lock release_lock grouping aes_decrypt aes_encrypt
compress decode encode md5 random_bytes sha1 sha sha2 uncompress uncompressed_length json_type
json_extract json_unquote json_array json_object json_merge json_set json_insert json_replace
json_remove json_overlaps json_contains json_memberof json_contains_path json_valid
json_array_append json_array_insert json_merge_patch json_merge_preserve json_pretty json_quote
json_search json_depth json_keys json_length nextval lastval setval cast
"""

_AGGREGATE_AND_WINDOW = """
count sum avg max min group_concat bit_or bit_xor bit_and var_pop var_samp variance stddev std
stddev_pop stddev_samp json_arrayagg json_objectagg approx_count_distinct approx_percentile
row_number rank dense_rank cume_dist percent_rank ntile lead lag first_value last_value nth_value
"""

BUILTIN_FUNCTIONS: frozenset[str] = frozenset((_SCALAR + _AGGREGATE_AND_WINDOW).split())


def is_builtin(name: str) -> bool:
    """True when TiDB has a built-in function of this name (case-insensitive)."""
    return name.casefold() in BUILTIN_FUNCTIONS
