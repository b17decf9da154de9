"""Make the HAProxy column-set shape fixtures from the captured 2.6.12 snapshot.

HAProxy's ``show stat`` CSV grew from 52 fields (1.4) to over 200 (2.9 and
3.x, with the ssl/quic/h3/h2/h1 module counters after a ``-`` column). The
header lists below are the ones HAProxy printed in those versions, as quoted
in public exporter code and tutorials; the values are the captured 2.6.12
snapshot (``tests/fixtures/haproxy/show_stat_after.csv``) projected onto each list, so a field a
version lacks is absent and a field the capture lacks is empty.

Run: ``python scripts/make_haproxy_shapes.py`` (rewrites ``tests/fixtures/haproxy/shapes/``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "haproxy" / "shapes"

V14 = (
    "pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,"
    "weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,"
    "rate_lim,rate_max,check_status,check_code,check_duration,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,"
    "hrsp_other,hanafail,req_rate,req_rate_max,req_tot,cli_abrt,srv_abrt"
)
V15 = V14 + ",comp_in,comp_out,comp_byp,comp_rsp,lastsess"
V29 = (
    V15 + ",last_chk,last_agt,qtime,ctime,rtime,ttime,agent_status,agent_code,agent_duration,check_desc,"
    "agent_desc,check_rise,check_fall,check_health,agent_rise,agent_fall,agent_health,addr,cookie,mode,algo,"
    "conn_rate,conn_rate_max,conn_tot,intercepted,dcon,dses,wrew,connect,reuse,cache_lookups,cache_hits,"
    "srv_icur,src_ilim,qtime_max,ctime_max,rtime_max,ttime_max,eint,idle_conn_cur,safe_conn_cur,"
    "used_conn_cur,need_conn_est,uweight,agg_server_status,agg_server_check_status,agg_check_status,srid,"
    "sess_other,h1sess,h2sess,h3sess,req_other,h1req,h2req,h3req,proto,-,ssl_sess,ssl_reused_sess,"
    "ssl_failed_handshake,quic_rxbuf_full,quic_dropped_pkt,quic_sent_pkt,quic_lost_pkt,h3_data,h3_headers,"
    "h2_headers_rcvd,h2_data_rcvd,h2_open_connections,h2_total_connections,h1_open_connections,"
    "h1_open_streams,h1_total_connections,h1_total_streams,h1_bytes_in,h1_bytes_out"
)
SHAPES = {"show_stat_1.4.csv": V14, "show_stat_1.5.csv": V15, "show_stat_2.9.csv": V29}


def records(path: Path) -> list[dict[str, str]]:
    """The captured snapshot as one dict per line."""
    lines = path.read_text().splitlines()
    header = lines[0].lstrip("# ").rstrip(",").split(",")
    return [dict(zip(header, row, strict=False)) for row in csv.reader(io.StringIO("\n".join(lines[1:])))]


def project(recs: list[dict[str, str]], header: str) -> str:
    """``show stat`` text with the given header: '# ' + fields, a trailing comma on every line."""
    names = header.split(",")
    out = io.StringIO()
    out.write("# " + header + ",\n")
    for rec in recs:
        out.write(",".join(rec.get(n, "") if n != "-" else "-" for n in names) + ",\n")
    return out.getvalue() + "\n"


if __name__ == "__main__":
    recs = records(HERE.parent / "show_stat_after.csv")
    for name, header in SHAPES.items():
        (HERE / name).write_text(project(recs, header))
