#!/usr/bin/env python3
"""Writes the nginx configuration of the independent ceiling: one process (master_process off,
so the pid the harness measures is the one answering), the bench certificate, TLS 1.2/1.3,
no access log, keep-alive without a request cap, and `return 200` with the exact bytes of the
response file (gpu-admission's own response to the bench's typical pod).

usage: nginx_conf.py RESPONSE_FILE CONF_FILE PORT CERT_DIR WORK_DIR
"""
import sys


def main(body, conf, port, certs, work):
    text = open(body).read()
    if "$" in text:  # nginx would read it as a variable: refuse rather than send other bytes
        sys.exit("the response contains '$', which nginx would read as a variable")
    quoted = "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    with open(conf, "w") as f:
        f.write(f"""daemon off;
master_process off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {work}/nginx-body;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_buffer_size 64k;
  server {{
    listen 127.0.0.1:{port} ssl;
    ssl_certificate {certs}/server.crt;
    ssl_certificate_key {certs}/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    # The same TLS 1.3 suite as gpu-admission picks (server/tls_context.cpp): the ceiling
    # measures the same cipher work per byte.
    ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256;
    ssl_prefer_server_ciphers on;
    location / {{
      default_type application/json;
      return 200 {quoted};
    }}
  }}
}}
""")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
