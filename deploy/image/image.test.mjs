// The image deploy/image/build-local.sh built, run as the Deployment runs it: read-only root
// filesystem, every capability dropped, no privilege escalation, the image's own user, the
// certificate mounted group-readable as a Secret is. It must be small, answer the probes and the
// metrics scrape over TLS, and give real answers to a real AdmissionReview.
//
// Run by deploy/image/test (make image-test), which builds the image and sets:
//   GPUA_IMAGE            the image reference           GPUA_PODMAN     deploy/image/podman
//   GPUA_IMAGE_ARCHIVE    the OCI archive written        GPUA_BINARY     the binary it holds
//   GPUA_IMAGE_CERTS      tls.crt, tls.key (0440, group 65532) and ca.crt
//   GPUA_IMAGE_CONTAINER  the container's name (the runner removes it too, whatever happens)
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run deploy/image/test (make image-test)`);
  return v;
}
const image = env("GPUA_IMAGE");
const podmanPath = env("GPUA_PODMAN");
const archive = env("GPUA_IMAGE_ARCHIVE");
const binary = env("GPUA_BINARY");
const certs = env("GPUA_IMAGE_CERTS");
const container = env("GPUA_IMAGE_CONTAINER");
const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

// docs/install.md's bound: under 100 MB (10^8 bytes, as podman counts them).
const MAX_IMAGE_BYTES = 100_000_000;
const UID = "65532";

function podman(...args) {
  const r = spawnSync(podmanPath, args, { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`podman ${args.join(" ")} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
  return r.stdout.trim();
}
const logs = () => spawnSync(podmanPath, ["logs", container], { encoding: "utf8" });
const logText = () => {
  const r = logs();
  return `\n--- podman logs ${container} ---\n${r.stdout}${r.stderr}`;
};

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let port;
const ca = fs.readFileSync(path.join(certs, "ca.crt"));

// One HTTPS request, the server's certificate verified against the dev CA for 127.0.0.1.
function request(method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        ca,
        headers: body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
        timeout: 5000,
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode, body: data }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${urlPath}: no answer in 5 s`)));
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

function running() {
  const r = spawnSync(podmanPath, ["inspect", "--format", "{{.State.Running}}", container], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === "true";
}

describe(`image ${image}`, () => {
  before(async () => {
    port = await freePort();
    podman(
      "run", "--detach", "--name", container,
      "--read-only", "--cap-drop=ALL", "--security-opt", "no-new-privileges",
      "--network=host",
      "--volume", `${certs}:/etc/gpu-admission/tls:ro`,
      image,
      // The image's CMD but for the address: on the host's network, a free port of 127.0.0.1.
      "--policies", "/etc/gpu-admission/policies",
      "--tls-cert", "/etc/gpu-admission/tls/tls.crt",
      "--tls-key", "/etc/gpu-admission/tls/tls.key",
      "--listen", `127.0.0.1:${port}`,
      "--shutdown-delay", "0s",
    );
    // Serving once /healthz answers; give up when the container exits or after 30 s.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await request("GET", "/healthz")).status === 200) return;
      } catch {
        // not listening yet
      }
      if (!running()) throw new Error(`the container exited before serving${logText()}`);
      if (Date.now() > deadline) throw new Error(`no answer on https://127.0.0.1:${port}/healthz in 30 s${logText()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  after(() => {
    // deploy/image/test removes it again whatever happens here.
    spawnSync(podmanPath, ["rm", "--force", "--time", "10", container], { encoding: "utf8" });
  });

  test("is under 100 MB", () => {
    const size = Number(podman("image", "inspect", "--format", "{{.Size}}", image));
    assert.ok(size > 0, `podman reports size ${size}`);
    assert.ok(size < MAX_IMAGE_BYTES, `${image} is ${(size / 1e6).toFixed(1)} MB, over 100 MB`);
  });

  test("the OCI archive holds it", () => {
    const st = fs.statSync(archive);
    assert.ok(st.size > 1e6, `${archive} is ${st.size} bytes`);
    // An oci-archive is a tar of an OCI layout: index.json and oci-layout at its root.
    const names = execFileSync("tar", ["-tf", archive], { encoding: "utf8" }).split("\n");
    for (const f of ["index.json", "oci-layout"]) assert.ok(names.includes(f), `${archive} has no ${f}: ${names.slice(0, 10)}`);
    const index = JSON.parse(execFileSync("tar", ["-xOf", archive, "index.json"], { encoding: "utf8" }));
    const refs = index.manifests.map((m) => m.annotations?.["org.opencontainers.image.ref.name"]);
    assert.ok(refs.some((r) => r && image.endsWith(r)), `index.json names ${refs}, not ${image}`);
  });

  test("runs as uid and gid 65532 with no capabilities on a read-only root", () => {
    assert.equal(podman("image", "inspect", "--format", "{{.Config.User}}", image), `${UID}:${UID}`);
    // The server itself, PID 1 of the container.
    const status = podman("exec", container, "cat", "/proc/1/status");
    assert.match(status, new RegExp(`^Uid:\\s+${UID}\\s+${UID}\\s+${UID}\\s+${UID}$`, "m"), status);
    assert.match(status, new RegExp(`^Gid:\\s+${UID}\\s`, "m"), status);
    assert.match(status, /^CapEff:\s+0+$/m, status);
    assert.match(status, /^NoNewPrivs:\s+1$/m, status);
    assert.equal(podman("exec", container, "id", "-u"), UID);
    const write = spawnSync(podmanPath, ["exec", container, "touch", "/usr/local/bin/x"], { encoding: "utf8" });
    assert.notEqual(write.status, 0, "wrote to the root filesystem");
    assert.match(write.stderr, /Read-only file system/);
  });

  test("runs the binary this run built: gpu-admission version", () => {
    const want = execFileSync(binary, ["version"], { encoding: "utf8" }).trim();
    assert.equal(podman("run", "--rm", "--read-only", "--cap-drop=ALL", "--entrypoint", "gpu-admission", image, "version"), want);
  });

  test("/healthz and /readyz answer 200 over TLS", async () => {
    for (const p of ["/healthz", "/readyz"]) {
      const r = await request("GET", p);
      assert.equal(r.status, 200, `${p}: ${r.status} ${r.body}`);
    }
  });

  const review = fs.readFileSync(path.join(repoRoot, "deploy/examples/admission-review-training.json"), "utf8");
  const uid = JSON.parse(review).request.uid;

  function admissionResponse(r, endpoint) {
    assert.equal(r.status, 200, `${endpoint}: ${r.status} ${r.body}`);
    const doc = JSON.parse(r.body);
    assert.equal(doc.apiVersion, "admission.k8s.io/v1", r.body);
    assert.equal(doc.kind, "AdmissionReview", r.body);
    assert.equal(doc.response?.uid, uid, `${endpoint} answered uid ${doc.response?.uid}, the request was ${uid}`);
    return doc.response;
  }

  test("/mutate admits the example training pod with the shipped policies' patch", async () => {
    const res = admissionResponse(await request("POST", "/mutate", review), "/mutate");
    assert.equal(res.allowed, true, JSON.stringify(res));
    assert.equal(res.patchType, "JSONPatch", JSON.stringify(res));
    const patch = JSON.parse(Buffer.from(res.patch, "base64").toString("utf8"));
    assert.ok(Array.isArray(patch) && patch.length > 0, JSON.stringify(patch));
    const text = JSON.stringify(patch);
    // policies/: the training class's priority class and its H100 pool's node affinity.
    assert.match(text, /"gpu-training"/, text);
    assert.match(text, /nodeAffinity|affinity/, text);
  });

  test("/validate judges the same pod", async () => {
    const res = admissionResponse(await request("POST", "/validate", review), "/validate");
    assert.equal(typeof res.allowed, "boolean", JSON.stringify(res));
    assert.equal(res.patch, undefined, "validation carries no patch");
  });

  test("/metrics has the server's metric families", async () => {
    const r = await request("GET", "/metrics");
    assert.equal(r.status, 200, r.body);
    for (const family of [
      "gpu_admission_build_info",
      "gpu_admission_requests_total",
      "gpu_admission_request_duration_seconds",
      "gpu_admission_policy_revision_info",
      "gpu_admission_certificate_expiry_timestamp_seconds",
      "gpu_admission_open_connections",
    ])
      assert.match(r.body, new RegExp(`^# TYPE ${family} `, "m"), `no ${family} in /metrics`);
    // The two reviews above, counted.
    assert.match(r.body, /^gpu_admission_requests_total\{path="\/mutate",decision="allowed",class="training",[^}]*\} 1$/m, r.body);
    assert.match(r.body, /^gpu_admission_requests_total\{path="\/validate",[^}]*\} 1$/m, r.body);
  });

  test("stops cleanly on SIGTERM", () => {
    podman("stop", "--time", "20", container);
    const code = podman("inspect", "--format", "{{.State.ExitCode}}", container);
    assert.equal(code, "0", `exit code ${code}${logText()}`);
  });
});
