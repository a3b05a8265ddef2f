# syntax=docker/dockerfile:1
#
# The `ask-user` CLI as a container image; docker-compose.yml runs it as the worker (`ask-user worker`).
#
#   docker build -t durable-ask-user .
#   docker run --rm -e TEMPORAL_ADDRESS=host.docker.internal:7233 durable-ask-user worker
#
# Two stages: the first installs every dependency, compiles src/ to dist/ and prunes the dev dependencies;
# the second copies only what runs (dist/, bin/, scripts/ensure-temporal.js, the production node_modules)
# onto a slim base and runs as the unprivileged `node` user. The build writes the workflow bundles
# (dist/worker/workflow-bundle.js, and dist/worker/workflow-bundle-worker-defaults.js for a worker with webhook URLs or a
# policy) that the worker loads at start, so the image needs no writable application folder.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first, so that a source change does not reinstall them. The Temporal worker's native core ships
# prebuilt inside its npm package, so no compiler toolchain is needed.
# No lifecycle scripts: no production dependency needs an install script, and the build runs below, once the
# sources are here.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# The build bundles the workflow code with one script and copies the page and the Temporal CLI lookup with the other.
COPY scripts/build-workflow-bundle.js scripts/copy-assets.js ./scripts/
COPY src ./src
# build:dist is the compile alone; the image runs the whole CLI from dist/ and needs no per-package assembly.
RUN npm run build:dist \
  && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# Two glibc malloc arenas instead of eight per core: the worker's native core allocates from many threads, and
# with the default its RSS holding 1,000 pending questions was about 50 MB higher, for the same CPU (README,
# "Worker memory").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
# Owned by root and only readable by the runtime user: the process cannot change its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
USER node
# bin/ask-user.js runs the compiled CLI from dist/ (it falls back to tsx only in a source checkout).
ENTRYPOINT ["node", "/app/bin/ask-user.js"]
CMD ["worker"]
