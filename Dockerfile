# One image for every process of the switch and its operator tools; the Helm chart picks the
# entry point per Deployment (`node <entry>`). Build: docker build -t ghcr.io/fspiop-switch/fspiop-switch:0.1.0 .
# The in-cluster load test (the chart's loadTest) runs a second image, the switch's plus the FSP
# simulators: docker build --target loadtest -t ghcr.io/fspiop-switch/fspiop-switch-loadtest:0.1.0 .
# Without a Docker daemon or Docker Hub, scripts/image.sh builds both from this same file with
# buildah on a locally assembled base (BASE_IMAGE=localhost/fspiop-switch-base:...).

# Both stages start from the same base: any Debian bookworm image with Node 20 and npm under
# /usr/local and a `node` user of uid 1000, as node:20-bookworm-slim has.
ARG BASE_IMAGE=node:20-bookworm-slim

# ---- build: production node_modules, with node-rdkafka's native addon -------------------------
FROM ${BASE_IMAGE} AS build
# node-rdkafka compiles its bundled librdkafka: a C/C++ toolchain, Python for node-gyp, and the
# OpenSSL / Cyrus SASL / zlib / zstd headers, so TLS and SASL/SCRAM to MSK are compiled in.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 make g++ ca-certificates libssl-dev libsasl2-dev zlib1g-dev libzstd-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts must run (node-rdkafka's build); dev dependencies stay out of the image.
# Of node-rdkafka's build only the addon and the librdkafka it loads ($ORIGIN/../deps) are
# kept, stripped: librdkafka's sources, objects and static archives are over 500 MB. Loading
# the module afterwards proves nothing it needs was removed.
RUN npm ci --omit=dev --no-audit --no-fund \
 && test -d node_modules/node-rdkafka/build/Release \
 && npm cache clean --force \
 && cd node_modules/node-rdkafka \
 && rm -rf deps/librdkafka build/Release/obj.target build/Release/.deps \
      build/deps/librdkafka build/deps/include build/deps/pkgconfig build/deps/share \
      build/deps/*.a build/deps/*.mk build/deps/*.Makefile \
 && strip --strip-unneeded build/Release/node-librdkafka.node build/deps/librdkafka.so.1 \
      build/deps/librdkafka++.so.1 \
 && node -e "console.log('librdkafka', require('node-rdkafka').librdkafkaVersion)"

# ---- portal: the operators' web application, bundled ------------------------------------------
# esbuild bundles portal/app with React and Mantine (dev dependencies) into portal/dist, which
# alone goes into the image: the portal's process serves those files and fetches nothing from
# elsewhere at run time. No native addon is needed for that, so install scripts are skipped.
FROM ${BASE_IMAGE} AS portal
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY portal ./portal
RUN node portal/build.mjs

# ---- switch: the product and its operator tools ---------------------------------------------
# Runs with a read-only root filesystem (the chart's readOnlyRootFilesystem): nothing below
# writes outside the volumes the chart mounts.
FROM ${BASE_IMAGE} AS switch
# The shared libraries the compiled librdkafka links against; ca-certificates for TLS to
# MSK and RDS (Amazon's roots are in the system store).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libssl3 libsasl2-2 zlib1g libzstd1 \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY package.json ./
# Only the code the processes run (tests, charts, perf/ and local-runtime scripts stay out).
COPY platform ./platform
COPY ledger ./ledger
COPY api-adapter ./api-adapter
COPY handlers ./handlers
COPY quoting ./quoting
COPY account-lookup ./account-lookup
# The portal's process and the bundle it serves (the portal stage above).
COPY portal/main.js portal/component.js portal/config.js ./portal/
COPY portal/server ./portal/server
COPY --from=portal /app/portal/dist ./portal/dist
# The operator tools: the Jobs' migrations and topics, the oracle's bulk load, the hub's JWS
# keys, and the dead-letter command (`kubectl exec … node tools/dead-letters.js list`;
# charts/README.md).
COPY tools ./tools
# The compact profile's host (the chart's `compact`): several components in one process.
COPY scripts/compact-host.js ./scripts/
# The image's `node` user (uid 1000), as the chart's securityContext expects.
USER 1000:1000
EXPOSE 3000 3001 3002 3010 4001 4002 4003
# The chart always sets the command; this default runs the transfers edge.
CMD ["node", "api-adapter/main.js"]

# ---- loadtest: the switch's image plus the in-cluster load test -----------------------------
# The FSP simulators, the provisioning Job's script and the validity gate (the chart's loadTest),
# with the local runtime's helpers they share with `make perf`. Never deployed as the switch.
FROM switch AS loadtest
COPY scripts/lib/fspiop-headers.js scripts/lib/onboarding.js scripts/lib/operator-auth.js scripts/lib/scheme-certs.js ./scripts/lib/
COPY perf/simulators ./perf/simulators
COPY perf/provision.js perf/gate.js ./perf/

# ---- the default target: the switch (a plain `docker build .` builds the product) -------------
FROM switch
