# The two commands of the README:
#   make run   - install what is missing, build, generate dev certs, serve the shipped policies
#                over TLS on https://127.0.0.1:8443
#   make test  - install what is missing, build (release and ASan+UBSan), run every test
JOBS ?= $(shell nproc)
# ccache (when installed) keys objects by paths relative to the checkout, so a fresh clone
# elsewhere (CI) reuses what an earlier build compiled.
export CCACHE_BASEDIR ?= $(CURDIR)
RELEASE := build/release
ASAN := build/asan
BIN := $(RELEASE)/bin/gpu-admission
LISTEN ?= 127.0.0.1:8443

.PHONY: deps build build-asan run test test-release test-asan policy-test deploy-test image image-test live-test fuzz bench \
	certs format clean \
	control-plane cluster-up cluster-down

deps:
	@bash .ci/install-deps

# Release (-O3 -DNDEBUG): the build the image, packagers and the benchmarks make, so every test
# run also proves it compiles under -Werror (GCC 12 finds false -Wrestrict only at -O3).
build: deps
	cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(RELEASE) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DGPUA_SANITIZE=ON -DGPUA_BENCHMARKS=OFF >/dev/null
	cmake --build $(ASAN) -j $(JOBS)

certs: deps
	@test -f certs/out/server.crt || bash certs/gen-dev-certs.sh

# --shutdown-delay 0s: on a workstation there is no Service whose endpoints must learn of the
# stop, so Ctrl-C ends it at once (the default 5 s is for Kubernetes).
run: build certs
	$(BIN) serve --policies policies --tls-cert certs/out/server.crt --tls-key certs/out/server.key --listen $(LISTEN) --shutdown-delay 0s

test-release: build
	ctest --test-dir $(RELEASE) --output-on-failure -j $(JOBS)

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

policy-test: build
	$(BIN) test policy-tests

# The deployment kit (deploy/, Dockerfile, monitoring): kustomize renders, strict schema
# validation, policy/deploy agreement, promtool, the image's libraries. Installs its own tools
# (npm packages into build/deploy-tools, promtool from Debian). See deploy/tests/run.
deploy-test: build
	bash deploy/tests/run

# The container image from the release binary, with no registry: Debian 12 bases debootstrapped
# from the Debian archive (cached outside the tree), podman build of the Dockerfile's prebuilt
# target, the OCI archive build/image/gpu-admission.oci.tar (docs/install.md).
image: build
	bash deploy/image/build-local.sh

# The image built as above, run read-only with every capability dropped and checked over TLS:
# size, user, probes, metrics, a real AdmissionReview (deploy/image/test).
image-test: build
	bash deploy/image/test

# libFuzzer targets (clang, ASan+UBSan) in build/fuzz, FUZZ_SECONDS each (webhook/fuzz/run.sh).
fuzz: deps
	JOBS=$(JOBS) bash webhook/fuzz/run.sh

# The test control plane (testcluster/): kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl and etcd built from their pinned Go modules into a cache outside the tree.
control-plane:
	@bash testcluster/build.sh

# A real control plane on 127.0.0.1 with fake GPU nodes and the webhook installed from deploy/;
# prints `export KUBECONFIG=...` last. cluster-down stops every process it started.
cluster-up: build
	@bash testcluster/up.sh

cluster-down:
	@bash testcluster/down.sh

# The live suites: the apiserver calls the webhook, the scheduler and controllers judge its work.
live-test: build
	bash testcluster/run-live-tests.sh

test: test-release test-asan policy-test deploy-test image-test live-test fuzz

bench: deps
	bash webhook/bench/run-all.sh

format: deps
	find webhook -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
