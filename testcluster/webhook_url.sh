#!/usr/bin/env bash
# The one documented change to the shipped webhook configurations for a webhook that runs outside
# the cluster (the test control plane, a developer's laptop): every clientConfig.service
# {name, namespace, port, path} becomes url: BASE+path; caBundle stays as the overlay filled it.
# The apiserver cannot route a Service to 127.0.0.1, so this is the only way to reach a local
# process (controller-runtime's envtest makes the same rewrite).
#
#   testcluster/webhook_url.sh webhooks.yaml https://127.0.0.1:8443 > webhooks-local.yaml
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: webhook_url.sh FILE BASE_URL" >&2; exit 2; }
python3 - "$1" "$2" <<'PY'
import re, sys
path, base = sys.argv[1], sys.argv[2].rstrip("/")
text = open(path).read()
# kustomize renders clientConfig.service as an indented block of name/namespace/path/port keys.
block = re.compile(r"^(?P<ind>\s*)service:\n(?P<body>(?:(?P=ind)\s+\w+: .*\n)+)", re.M)
def swap(m):
    fields = dict(re.findall(r"^\s+(\w+): (.*)$", m.group("body"), re.M))
    if "path" not in fields:
        sys.exit("webhook_url: a clientConfig.service has no path: %r" % fields)
    return "%surl: %s%s\n" % (m.group("ind"), base, fields["path"].strip("\"'"))
out, n = block.subn(swap, text)
if n == 0: sys.exit("webhook_url: no clientConfig.service in " + path)
sys.stdout.write(out)
PY
