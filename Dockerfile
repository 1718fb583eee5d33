# gpu-admission container image (docs/install.md: building where a registry can be pulled from).
#
#   docker build --build-arg GPUA_REVISION="$(git rev-parse --short=12 HEAD)" \
#     -t registry.example.com/gpu-admission:0.5.0 .
#
# Build stage: the project's own CMake build on Debian 12, binary only (no tests, no benchmarks).
# Runtime stage: debian:12-slim plus exactly the shared libraries the binary links. deploy/tests
# checks, on every `make test`, that each library `ldd` reports for the built binary comes from a
# Debian package named in the runtime stage's apt-get install below, so a new dependency cannot
# break the image unnoticed.
#
# The default target, the last stage, is the runtime stage plus the build stage's binary: the
# image for registries. `--target prebuilt` is the same runtime stage plus a binary built
# outside, the context's stripped `gpu-admission`, and skips the build stage: how `make test`
# builds and runs the image from the release binary it has already compiled
# (deploy/image/build-local.sh, with a context of just that binary and policies/).
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake g++ make pkg-config libboost-dev libssl-dev rapidjson-dev \
      libyaml-cpp-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY webhook ./webhook
# The sources come without .git: the revision is a build argument ("unknown" when not given).
ARG GPUA_REVISION=""
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DGPUA_TESTS=OFF -DGPUA_BENCHMARKS=OFF \
      -DGPUA_REVISION="${GPUA_REVISION}" \
 && cmake --build /build --target gpu-admission -j "$(nproc)" \
 && strip --strip-all -o /gpu-admission /build/bin/gpu-admission \
 && /gpu-admission version

FROM debian:12-slim AS runtime
# One package per library the binary links (ldd): libc6 (libc, libm, ld-linux), libgcc-s1,
# libstdc++6, libssl3 (libssl, libcrypto), libyaml-cpp0.7. ca-certificates: the cluster client
# trusts the in-cluster CA it is given, but an out-of-cluster --kubeconfig may need system roots.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libc6 libgcc-s1 libstdc++6 libssl3 libyaml-cpp0.7 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# The shipped policies, so `docker run IMAGE` serves something; in a cluster the ConfigMap of
# policies/ is mounted over /etc/gpu-admission/policies.
COPY policies/*.yaml /etc/gpu-admission/policies/
# uid/gid 65532 ("nonroot" by convention), the same the Deployment's securityContext requires.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/gpu-admission", "serve"]
CMD ["--policies", "/etc/gpu-admission/policies", \
     "--tls-cert", "/etc/gpu-admission/tls/tls.crt", \
     "--tls-key", "/etc/gpu-admission/tls/tls.key", \
     "--listen", "0.0.0.0:8443"]

# A binary built outside, stripped (deploy/image/build-local.sh): `--target prebuilt`.
FROM runtime AS prebuilt
COPY gpu-admission /usr/local/bin/gpu-admission

# The default target: the binary of the build stage.
FROM runtime
COPY --from=build /gpu-admission /usr/local/bin/gpu-admission
